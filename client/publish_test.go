package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/restorejob"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/kafka"
	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/client"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/restore"
	"github.com/auditlog/auditlog/sqlite"
)

func ivrEvents(t *testing.T, c *client.Client, n int) []audit.Event {
	t.Helper()
	var out []audit.Event
	for i := 0; i < n; i++ {
		e, err := c.Event(client.Change{TenantID: tenant, Actor: actor, Action: audit.ActionUpdate, Resource: ivr,
			Before: ivrState{Greeting: "v" + string(rune('0'+i))}, After: ivrState{Greeting: "v" + string(rune('1'+i))}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestPublishToKafka: events reach the real broker keyed by tenant, in
// order, as the service's indexer reads them.
func TestPublishToKafka(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	topic := testenv.Name("client-events")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, client.Config{Brokers: brokers, Topic: topic})
	events := ivrEvents(t, c, 3)
	if err := c.Publish(ctx, events...); err != nil {
		t.Fatal(err)
	}
	rd := kgo.NewReader(kgo.ReaderConfig{Brokers: brokers, Topic: topic, Partition: 0})
	defer rd.Close()
	for i := range events {
		m, err := rd.ReadMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := audit.DecodeEvent(m.Value, time.Now())
		if err != nil || string(m.Key) != tenant || !audit.SameEvent(&got, &events[i]) {
			t.Fatalf("message %d: key %s %s %v", i, m.Key, m.Value, err)
		}
	}
}

// TestPublishOverHTTP: events reach a real service's ingest endpoint and
// its store; a refused event is an error naming it.
func TestPublishOverHTTP(t *testing.T) {
	store, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(api.NewServer(api.Config{}, api.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Ingest: api.IngestDeps{Writer: store, StaticToken: "svc"}}).Handler())
	defer srv.Close()
	c := newClient(t, client.Config{IngestURL: srv.URL, IngestToken: "svc"})
	events := ivrEvents(t, c, 2)
	if err := c.Publish(context.Background(), events...); err != nil {
		t.Fatal(err)
	}
	for i, e := range events {
		// The service computed the diff from the states the client sent.
		got, err := store.GetEvent(context.Background(), tenant, e.ID)
		d := got.Diff["greeting"]
		if err != nil || len(got.Diff) != 1 || string(d.From) != fmt.Sprintf(`"v%d"`, i) || string(d.To) != fmt.Sprintf(`"v%d"`, i+1) {
			t.Fatalf("stored %+v %v", got, err)
		}
		got.Diff = nil
		if !audit.SameEvent(&got, &e) {
			t.Fatalf("stored %+v, sent %+v", got, e)
		}
	}
	bad := events[0]
	bad.ID, bad.Actor.Email = audit.NewID(), "not-an-email"
	err = c.Publish(context.Background(), bad)
	if err == nil || !strings.Contains(err.Error(), "actor.email") {
		t.Fatalf("a refused event: %v", err)
	}
	wrong := newClient(t, client.Config{IngestURL: srv.URL, IngestToken: "nope"})
	if err := wrong.Publish(context.Background(), events[0]); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a wrong token: %v", err)
	}
}

// TestConsumeRestores: the service's Kafka publisher sends a signed
// request; the client hands it to the handler and commits. A forged
// message is reported and skipped.
func TestConsumeRestores(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	topic := testenv.Name("client-restores")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	req := restorejob.Request{RequestID: "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4", TenantID: tenant, Resource: ivr, State: json.RawMessage(`{"greeting":"hi"}`)}
	forged, _ := json.Marshal(restorejob.Request{RequestID: "8a9b0c1d-2e3f-5a4b-9c5d-6e7f8091a2b3", TenantID: tenant, Resource: ivr})
	testenv.Produce(t, brokers, topic, []kafka.Message{{Key: []byte(tenant), Value: forged}})
	pub := restore.NewKafka(brokers, topic, secret)
	defer pub.Close()
	body, _ := json.Marshal(req)
	if err := pub.Send(ctx, req, body); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, client.Config{Brokers: brokers, RestoreTopic: topic, RestoreSecret: secret})
	var invalid []error
	got := make(chan restorejob.Request, 2)
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- c.ConsumeRestores(cctx, testenv.Name("owner"), func(_ context.Context, r restorejob.Request) error {
			got <- r
			stop()
			return nil
		}, func(_ kafka.Message, err error) { invalid = append(invalid, err) })
	}()
	select {
	case r := <-got:
		if r.RequestID != req.RequestID || string(r.State) != `{"greeting":"hi"}` {
			t.Fatalf("handled %+v", r)
		}
	case <-ctx.Done():
		t.Fatal("no request handled")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(invalid) != 1 || !errors.Is(invalid[0], client.ErrBadSignature) {
		t.Fatalf("the forged message: %v", invalid)
	}
}

// TestConsumeRestoresBeforeTheTopicExists: an owner whose consumer starts
// before the audit log created the topic still gets the requests.
func TestConsumeRestoresBeforeTheTopicExists(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	topic := testenv.Name("client-restores-late")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := newClient(t, client.Config{Brokers: brokers, RestoreTopic: topic})
	got := make(chan restorejob.Request, 1)
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- c.ConsumeRestores(cctx, testenv.Name("owner"), func(_ context.Context, r restorejob.Request) error { got <- r; stop(); return nil }, nil)
	}()
	time.Sleep(3 * time.Second) // an absence over time: the consumer has joined a group on no topic
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	req := restorejob.Request{RequestID: "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4", TenantID: tenant, Resource: ivr}
	body, _ := json.Marshal(req)
	pub := restore.NewKafka(brokers, topic, nil)
	defer pub.Close()
	if err := pub.Send(ctx, req, body); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.RequestID != req.RequestID {
			t.Fatalf("%+v", r)
		}
	case <-ctx.Done():
		t.Fatal("the request never reached a consumer that started before its topic")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
