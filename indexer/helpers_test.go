package indexer_test

import (
	"context"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/retention"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/kafka"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/indexer"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// env is one test's world: a unique index prefix, topic and group on the
// real services.
type env struct {
	brokers []string
	topic   string
	prefix  string
	store   *elasticsearch.Store
	caps    elasticsearch.Capabilities
	// logWarnings sends the indexer's warnings to the test's log (the
	// outage test, whose failure in CI must say what the indexer saw).
	logWarnings bool
}

// testLog writes each slog line to t.Log.
type testLog struct{ t testing.TB }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func newEnv(t *testing.T) *env {
	t.Helper()
	brokers := testenv.KafkaBrokers(t)
	prefix := testenv.Name("auditlog-ix")
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	store, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	e := &env{brokers: brokers, topic: testenv.Name("audit-events"), prefix: prefix, store: store, caps: caps}
	// The source topic accepts the 2 MB poison message whatever the
	// broker's default limit.
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: e.topic, Partitions: 4, Config: map[string]string{"max.message.bytes": "4194304"}}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) config() indexer.Config {
	return indexer.Config{Brokers: e.brokers, Topic: e.topic, Group: e.topic + "-group", Partitions: 4,
		BatchSize: 500, Linger: 50 * time.Millisecond, MinBackoff: 50 * time.Millisecond, MaxBackoff: time.Second}
}

// start runs an indexer in-process until the test ends.
func (e *env) start(t *testing.T, cfg indexer.Config) *prometheus.Registry {
	t.Helper()
	_, reg := e.startOn(t, cfg, e.store)
	return reg
}

// startOn runs an indexer on store in-process until the test ends.
func (e *env) startOn(t *testing.T, cfg indexer.Config, store audit.EventWriter) (*indexer.Indexer, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("AUDITLOG_TEST_VERBOSE") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	} else if e.logWarnings {
		log = slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	deps := indexer.Deps{Store: store, Logger: log, Registry: reg}
	if dir, ok := store.(audit.TenantDirectory); ok {
		deps.Retention = &retention.Gate{Directory: dir, Default: audit.PlanEnterprise}
	}
	ix := indexer.New(cfg, deps)
	ctx, cancel := context.WithCancel(context.Background())
	if err := ix.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("indexer stopped with %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Error("indexer did not stop within 60s")
		}
	})
	return ix, reg
}

func eventMessages(t *testing.T, events []audit.Event) []kafka.Message {
	t.Helper()
	msgs := make([]kafka.Message, len(events))
	for i, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		msgs[i] = kafka.Message{Key: []byte(e.TenantID), Value: b}
	}
	return msgs
}

func (e *env) count(t *testing.T, pattern string) int {
	return testenv.Count(t, e.store.Client(), pattern)
}

func (e *env) waitCount(t *testing.T, pattern string, want int, timeout time.Duration) {
	testenv.WaitCount(t, e.store.Client(), pattern, want, timeout)
}

func (e *env) scan(t *testing.T, pattern string) map[string]audit.Event {
	return testenv.Scan(t, e.store.Client(), pattern)
}

func produce(t *testing.T, brokers []string, topic string, msgs []kafka.Message) {
	testenv.Produce(t, brokers, topic, msgs)
}

func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	return testenv.Metric(t, reg, name)
}

// loggedStore is a store on e's cluster and prefix that queues what it
// writes for sealing (as `auditlog index` does by default).
func (e *env) loggedStore(t *testing.T) *elasticsearch.Store {
	t.Helper()
	s, err := elasticsearch.NewStore(e.store.Client(), e.caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanEnterprise, Log: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
