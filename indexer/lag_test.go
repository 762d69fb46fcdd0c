package indexer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestLagIsMeasuredDuringAnOutage: with Elasticsearch cut away from the
// indexer, the consumer-lag gauge shows the messages waiting (it read 0
// before, being set only after a written batch), Ready reports that no
// progress is made, and both recover once the store is back.
func TestLagIsMeasuredDuringAnOutage(t *testing.T) {
	e := newEnv(t)
	proxy := testenv.StartProxy(t, strings.TrimPrefix(testenv.ElasticsearchURL(t), "http://"))
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{"http://" + proxy.Addr}, IndexPrefix: e.prefix, RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	store, err := elasticsearch.NewStore(c, e.caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, DefaultPlan: audit.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	cfg.LagInterval, cfg.StallAfter = 200*time.Millisecond, 2*time.Second
	const n = 2000
	g := gen.New(gen.Config{Seed: 44, Tenants: 3, WithIDs: true}, 2*n)
	events := make([]audit.Event, 2*n)
	for i := range events {
		events[i] = g.Next()
	}
	msgs := eventMessages(t, events)
	produce(t, e.brokers, e.topic, msgs[:n])
	ix, reg := e.startOn(t, cfg, store)
	lag := func() float64 { return testenv.Metric(t, reg, "auditlog_indexer_consumer_lag") }
	e.waitCount(t, e.store.AllStreamsPattern(), n, 2*time.Minute)
	testenv.Eventually(t, time.Minute, func() error {
		if l := lag(); l != 0 {
			return fmt.Errorf("lag %v after everything was indexed", l)
		}
		return ix.Ready(context.Background())
	})

	proxy.Cut()
	produce(t, e.brokers, e.topic, msgs[n:])
	testenv.Eventually(t, time.Minute, func() error {
		if l := lag(); l < n {
			return fmt.Errorf("lag %v during the outage, want at least %d", l, n)
		}
		return nil
	})
	testenv.Eventually(t, time.Minute, func() error {
		if err := ix.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "not making progress") {
			return fmt.Errorf("ready during the outage: %v", err)
		}
		return nil
	})

	proxy.Restore()
	e.waitCount(t, e.store.AllStreamsPattern(), 2*n, 3*time.Minute)
	testenv.Eventually(t, time.Minute, func() error {
		if l := lag(); l != 0 {
			return fmt.Errorf("lag %v after the outage", l)
		}
		return ix.Ready(context.Background())
	})
}
