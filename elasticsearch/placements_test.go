package elasticsearch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// directoryCounter is a reverse proxy to the test Elasticsearch that
// counts the directory reads going through it: single GETs of an entry,
// and _mget requests.
type directoryCounter struct {
	url        string
	gets, mget atomic.Int64
}

func newDirectoryCounter(t *testing.T, tenantsIndex string) *directoryCounter {
	t.Helper()
	target, err := url.Parse(testenv.ElasticsearchURL(t))
	if err != nil {
		t.Fatal(err)
	}
	d := &directoryCounter{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/"+tenantsIndex+"/_doc/"):
			d.gets.Add(1)
		case strings.HasPrefix(r.URL.Path, "/"+tenantsIndex+"/_mget"):
			d.mget.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	d.url = srv.URL
	return d
}

// TestWriteReadsTheDirectoryOncePerBatch: a batch of events from 40
// tenants whose placements the writer has not cached reads the directory
// once (one _mget), not once per tenant, and every event lands where its
// tenant reads: the long tail of the shared layout writes batches from
// hundreds of tenants. A tenant first seen in the same batch is still
// registered.
func TestWriteReadsTheDirectoryOncePerBatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := elasticsearch.StoreConfig{Accept: accepttest.Acceptor, NewTenants: elasticsearch.LayoutShared}
	admin, _ := newStore(t, cfg)
	const n = 40
	g := gen.New(gen.Config{Seed: 40, Tenants: n + 1, WithIDs: true}, 2*(n+1))
	tenants := g.Tenants()
	for i, tn := range tenants[:n] { // known: in the directory, on either layout
		if i%4 == 0 {
			if err := admin.SetPlan(ctx, tn.ID, audit.PlanPro); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := admin.EnsureTenant(ctx, tn.ID, audit.PlanStarter); err != nil {
			t.Fatal(err)
		}
	}
	events := make([]audit.Event, 0, 2*(n+1))
	for i := 0; i < 2*(n+1); i++ {
		e := g.Next()
		e.TenantID = tenants[i%(n+1)].ID
		events = append(events, e)
	}

	prefix := admin.Client().Config().IndexPrefix
	d := newDirectoryCounter(t, admin.TenantsIndex())
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{d.url}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := storeOn(t, c, cfg)
	res, err := w.WriteEvents(ctx, events)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != audit.WriteCreated {
			t.Fatalf("event %d of tenant %s: %v %s", i, events[i].TenantID, r.Status, r.Reason)
		}
	}
	// One _mget for the batch; the one GET is the tenant first seen
	// (absent from the _mget, read again before it is registered).
	if gets, mget := d.gets.Load(), d.mget.Load(); mget != 1 || gets > 1 {
		t.Fatalf("a batch of %d cold tenants read the directory with %d _mget and %d single GETs, want 1 and at most 1", n+1, mget, gets)
	}
	for _, tn := range []gen.Tenant{tenants[0], tenants[1], tenants[n]} {
		if ids := visibleIDs(t, admin, tn.ID); len(ids) != 2 {
			t.Fatalf("tenant %s sees %d events, want its 2", tn.ID, len(ids))
		}
	}
	if plan, err := admin.Plan(ctx, tenants[n].ID); err != nil || plan != audit.PlanEnterprise {
		t.Fatalf("the tenant first seen in the batch: %v %v", plan, err)
	}
}
