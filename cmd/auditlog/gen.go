package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// runGen generates realistic contact-center audit events (package gen),
// deterministically from a seed, and writes them as NDJSON (a file or
// stdout), to HTTP ingest, or to Kafka, as fast as possible or at a rate.
//
//	auditlog gen --count 100000 > events.ndjson
//	auditlog gen --count 100000 --http http://127.0.0.1:8080 --token $AUDITLOG_INGEST_TOKEN
//	auditlog gen --count 1000000 --kafka-brokers 127.0.0.1:9092 --rate 5000
func runGen(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	b := newBinder("auditlog gen", getenv, stderr)
	var count, tenants, rate, batch int
	var seed uint64
	var skew float64
	var out, httpURL, token, brokers, topic, firstTenant string
	var withIDs bool
	var days int
	var end string
	b.fs.IntVar(&count, "count", 10000, "events to generate")
	b.fs.Uint64Var(&seed, "seed", 1, "random seed: the same seed gives the same events")
	b.fs.IntVar(&tenants, "tenants", 20, "tenants, spread over the three plans")
	b.fs.Float64Var(&skew, "skew", 1.1, "Zipf exponent of tenant sizes (0: even)")
	b.fs.IntVar(&days, "days", 30, "the events span this many days before --end")
	b.fs.StringVar(&end, "end", "", "end of the time span, RFC 3339 (default now); give it for byte-identical runs")
	b.fs.BoolVar(&withIDs, "with-ids", false, "set event ids (otherwise the service derives them)")
	b.fs.StringVar(&firstTenant, "first-tenant", "", "id of the biggest tenant (e.g. the demo tenant)")
	b.fs.IntVar(&rate, "rate", 0, "events per second (0: as fast as possible)")
	b.fs.IntVar(&batch, "batch", 500, "events per HTTP request or Kafka write")
	b.fs.StringVar(&out, "out", "-", "NDJSON file to write (- for stdout), when neither --http nor --kafka-brokers is given")
	b.fs.StringVar(&httpURL, "http", "", "base URL of an auditlog serve: events go to POST /api/audit-events")
	b.str(&token, "token", "AUDITLOG_INGEST_TOKEN", "", "service credential for --http")
	b.fs.StringVar(&brokers, "kafka-brokers", "", "Kafka brokers, comma-separated: events go to --kafka-topic")
	b.fs.StringVar(&topic, "kafka-topic", "audit-events", "Kafka topic")
	b.fs.Usage = func() {
		fmt.Fprintf(b.fs.Output(), "Usage: auditlog gen [flags]\n\nGenerates realistic contact-center audit events (the same generator as make demo and make bench).\n\nFlags:\n")
		b.fs.PrintDefaults()
	}
	if err := b.parse(args); err != nil {
		return err
	}
	if firstTenant != "" && !audit.ValidUUID(firstTenant) {
		return fmt.Errorf("--first-tenant %q is not a UUID", firstTenant)
	}
	now := time.Now().UTC()
	if end != "" {
		ts, err := audit.ParseTimestamp(end)
		if err != nil {
			return fmt.Errorf("--end: %w", err)
		}
		now = ts.Time
	}
	g := gen.New(gen.Config{Seed: seed, Tenants: tenants, Skew: skew, WithIDs: withIDs, FirstTenantID: firstTenant,
		Start: now.Add(-time.Duration(days) * 24 * time.Hour), End: now}, count)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	var sink func([]audit.Event) error
	var closeSink func() error
	switch {
	case httpURL != "":
		client := &http.Client{Timeout: time.Minute}
		sink = func(evs []audit.Event) error {
			body, _ := json.Marshal(evs)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(httpURL, "/")+"/api/audit-events", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := client.Do(req)
			if err != nil {
				return err
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(res.Body)
				return fmt.Errorf("ingest answered %d: %s", res.StatusCode, b)
			}
			return nil
		}
	case brokers != "":
		w := &kafka.Writer{Addr: kafka.TCP(splitList(brokers)...), Topic: topic, Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll,
			BatchSize: batch, BatchBytes: 16 << 20, BatchTimeout: 10 * time.Millisecond, Transport: &kafka.Transport{}}
		closeSink = w.Close
		sink = func(evs []audit.Event) error {
			msgs := make([]kafka.Message, len(evs))
			for i, e := range evs {
				v, _ := json.Marshal(e)
				msgs[i] = kafka.Message{Key: []byte(e.TenantID), Value: v}
			}
			return w.WriteMessages(ctx, msgs...)
		}
	default:
		f := stdout
		if out != "-" {
			file, err := os.Create(out)
			if err != nil {
				return err
			}
			f = file
			closeSink = file.Close
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		enc := json.NewEncoder(bw)
		sink = func(evs []audit.Event) error {
			for i := range evs {
				if err := enc.Encode(evs[i]); err != nil {
					return err
				}
			}
			return bw.Flush()
		}
	}
	start := time.Now()
	for sent := 0; sent < count; {
		n := min(batch, count-sent)
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = g.Next()
		}
		if err := sink(evs); err != nil {
			return err
		}
		sent += n
		if rate > 0 { // pace: sent events should have taken sent/rate seconds
			if wait := time.Duration(float64(sent)/float64(rate)*float64(time.Second)) - time.Since(start); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
	}
	if closeSink != nil {
		if err := closeSink(); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "generated %d events in %s\n", count, time.Since(start).Round(time.Millisecond))
	return nil
}
