package elasticsearch_test

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/ilm"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

func TestConformance(t *testing.T) { conformance(t, elasticsearch.LayoutDedicated) }

// TestConformanceSharedLayout runs the whole suite, tenant isolation and
// ids per tenant included, with every tenant in its plan's shared stream.
func TestConformanceSharedLayout(t *testing.T) { conformance(t, elasticsearch.LayoutShared) }

func conformance(t *testing.T, layout elasticsearch.Layout) {
	storetest.Run(t, func(t *testing.T) storetest.Backend {
		// Real retentions; a rollover at each pass, so that the lifecycle
		// worker can delete what is old at once.
		short := map[audit.Plan]ilm.Policy{}
		for _, plan := range audit.Plans {
			p, _ := ilm.For(plan)
			p.RolloverMaxAge = "0ms"
			short[plan] = p
		}
		s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Policies: short, TenantCacheTTL: time.Millisecond, NewTenants: layout})
		return storetest.Backend{Writer: s, Reader: s, Tenants: s, Scanner: s, Jobs: s, Keys: s, Restores: s, Periodic: s, Saved: s, Streams: s,
			PlantKey: func(t testing.TB, name string, value []byte) {
				if err := s.Client().DoJSON(context.Background(), http.MethodPut, "/"+s.KeysIndex()+"/_doc/"+name+"?refresh=true", map[string]any{"value": value}, nil); err != nil {
					t.Fatal(err)
				}
			},
			Visible: func(t testing.TB) {
				if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true", nil, nil); err != nil {
					t.Fatal(err)
				}
			},
			EnforceRetention: func(t testing.TB) {
				if _, err := s.RunLifecycle(context.Background()); err != nil {
					t.Fatal(err)
				}
			}}
	})
}

// TestLogConformance runs the verifiable log's behaviours on both
// layouts: a tenant's own stream, and a plan's shared stream.
func TestLogConformance(t *testing.T) {
	for _, layout := range []elasticsearch.Layout{elasticsearch.LayoutDedicated, elasticsearch.LayoutShared} {
		t.Run(string(layout), func(t *testing.T) {
			storetest.RunLog(t, func(t *testing.T) storetest.LogBackend {
				s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true, NewTenants: layout})
				return storetest.LogBackend{Log: s, Backend: storetest.Backend{Writer: s, Reader: s,
					Visible: func(t testing.TB) {
						if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true", nil, nil); err != nil {
							t.Fatal(err)
						}
					}},
					WriterWith: func(t *testing.T, a *vlog.Acceptor) audit.EventWriter {
						w, _ := storeOn(t, s.Client(), elasticsearch.StoreConfig{Accept: a, Log: true, NewTenants: layout})
						return w
					}}
			})
		})
	}
}
