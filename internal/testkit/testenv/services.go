package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

// Produce writes msgs to topic, retrying while a new topic is not yet
// known to the broker.
func Produce(t testing.TB, brokers []string, topic string, msgs []kafka.Message) {
	t.Helper()
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topic, Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll,
		BatchSize: 1000, BatchBytes: 8 << 20, BatchTimeout: 10 * time.Millisecond, Transport: &kafka.Transport{}}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for i := 0; i < len(msgs); i += 1000 {
		chunk := msgs[i:min(i+1000, len(msgs))]
		// A topic just created may not be in every broker's metadata yet.
		Eventually(t, time.Minute, func() error {
			err := w.WriteMessages(ctx, chunk...)
			if err != nil && !errors.Is(err, kafka.UnknownTopicOrPartition) && !errors.Is(err, kafka.LeaderNotAvailable) {
				t.Fatalf("produce: %v", err)
			}
			return err
		})
	}
}

// Count refreshes and counts the documents matching pattern.
func Count(t testing.TB, c *elasticsearch.Client, pattern string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.DoJSON(ctx, http.MethodPost, "/"+pattern+"/_refresh?allow_no_indices=true&ignore_unavailable=true", nil, nil)
	var out struct{ Count int }
	if err := c.DoJSON(ctx, http.MethodGet, "/"+pattern+"/_count?allow_no_indices=true&ignore_unavailable=true", nil, &out); err != nil {
		t.Logf("count: %v", err)
		return -1
	}
	return out.Count
}

// WaitCount polls until pattern holds want documents, failing on more.
func WaitCount(t testing.TB, c *elasticsearch.Client, pattern string, want int, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, func() error {
		n := Count(t, c, pattern)
		if n > want {
			t.Fatalf("%s holds %d documents, more than the %d produced", pattern, n, want)
		}
		if n != want {
			return fmt.Errorf("%s holds %d of %d documents", pattern, n, want)
		}
		return nil
	})
}

// Scan returns every stored event matching pattern, by id, reading with a
// point in time and search_after; it fails on a repeated id.
func Scan(t testing.TB, c *elasticsearch.Client, pattern string) map[string]audit.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var pit struct {
		ID string `json:"id"`
	}
	if err := c.DoJSON(ctx, http.MethodPost, "/"+pattern+"/_pit?keep_alive=2m", nil, &pit); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.DoJSON(context.Background(), http.MethodDelete, "/_pit", map[string]any{"id": pit.ID}, nil)
	}()
	out := map[string]audit.Event{}
	var after []any
	for {
		body := map[string]any{"size": 5000, "pit": map[string]any{"id": pit.ID, "keep_alive": "2m"},
			"sort": []any{map[string]any{"id": "asc"}, map[string]any{"_shard_doc": "asc"}}}
		if after != nil {
			body["search_after"] = after
		}
		var page struct {
			Hits struct {
				Hits []struct {
					ID     string          `json:"_id"`
					Source json.RawMessage `json:"_source"`
					Sort   []any           `json:"sort"`
				} `json:"hits"`
			} `json:"hits"`
		}
		if err := c.DoJSON(ctx, http.MethodPost, "/_search", body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Hits.Hits) == 0 {
			return out
		}
		for _, h := range page.Hits.Hits {
			ev, err := elasticsearch.DecodeSource(h.Source)
			if err != nil {
				t.Fatal(err)
			}
			if _, dup := out[ev.ID]; dup {
				t.Fatalf("event %s is stored twice", ev.ID)
			}
			// A tenant's own stream keys a document by the event id, a
			// shared stream by tenant:id.
			if h.ID != ev.ID && h.ID != strings.ToLower(ev.TenantID)+":"+ev.ID {
				t.Fatalf("_id %s holds event %s of tenant %s", h.ID, ev.ID, ev.TenantID)
			}
			out[ev.ID] = ev
		}
		after = page.Hits.Hits[len(page.Hits.Hits)-1].Sort
	}
}

// Metric sums every series of a metric family in reg.
func Metric(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			switch {
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			}
		}
	}
	return sum
}

// Committed sums the offsets the consumer group has committed on the
// topic's partitions (an uncommitted partition counts 0).
func Committed(t testing.TB, brokers []string, group, topic string, partitions int) int64 {
	t.Helper()
	parts := make([]int, partitions)
	for i := range parts {
		parts[i] = i
	}
	kc := &kafka.Client{Addr: kafka.TCP(brokers...)}
	offs, err := kc.OffsetFetch(context.Background(), &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: parts}})
	if err != nil {
		t.Fatalf("offset fetch: %v", err)
	}
	var sum int64
	for _, p := range offs.Topics[topic] {
		sum += max(0, p.CommittedOffset)
	}
	return sum
}
