package main

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/backoff"
	"github.com/auditlog/auditlog/sqlite"
)

// eventStore is the configured store of serve, seen through the domain's
// interfaces, with its readiness check and its retention pass.
type eventStore interface {
	audit.EventReader
	stats.Reader
	audit.EventWriter
	audit.EventScanner
	exportjob.Store
	vlog.KeyRows
	restorejob.Store
	audit.TenantDirectory
	periodic.Store
	savedsearch.Store
	stream.Store
}

// retainedStore is a store whose every read path (list, detail, stats,
// span, count, export scan) goes through audit.Retained: an event past its
// tenant's plan retention is never shown, even while it waits for the
// store's next retention pass or for its backing index to expire.
type retainedStore struct {
	eventStore
	r *audit.Retained
}

func (s retainedStore) SearchEvents(ctx context.Context, q audit.Query) (audit.Result, error) {
	return s.r.SearchEvents(ctx, q)
}

func (s retainedStore) GetEvent(ctx context.Context, tenantID, id string) (audit.Event, error) {
	return s.r.GetEvent(ctx, tenantID, id)
}

func (s retainedStore) EventStats(ctx context.Context, q stats.Query) (stats.Stats, error) {
	return stats.Retained{Reader: s.eventStore, Retention: s.r}.EventStats(ctx, q)
}

func (s retainedStore) EventSpan(ctx context.Context, f audit.Filter) (audit.Span, error) {
	return s.r.EventSpan(ctx, f)
}

func (s retainedStore) CountEvents(ctx context.Context, f audit.Filter) (int64, error) {
	return s.r.CountEvents(ctx, f)
}

func (s retainedStore) ScanEvents(ctx context.Context, f audit.Filter, so audit.Sort, fn func([]audit.Event) error) error {
	return s.r.ScanEvents(ctx, f, so, fn)
}

// openedStore is what openStore built.
type openedStore struct {
	store eventStore
	// raw is the store as it is, without the read-time retention (the
	// legal hold report counts held events past their retention).
	raw   eventStore
	ready api.ReadinessCheck
	// unhonoured says why this store's retention cannot honour legal
	// holds (nil: it can).
	unhonoured error
	// retention runs the store's retention pass until ctx ends; nil when
	// the cluster's ILM enforces retention.
	retention func(ctx context.Context)
}

// openStore builds the store named by AUDITLOG_STORE from its own
// configuration section: the one place that chooses a backend.
func (m *Main) openStore(ctx context.Context) (*openedStore, error) {
	plan, err := m.defaultPlan()
	if err != nil {
		return nil, err
	}
	opened, err := m.openBackend(ctx, plan)
	if err != nil {
		return nil, err
	}
	opened.raw = opened.store
	opened.store = retainedStore{eventStore: opened.store, r: &audit.Retained{
		Reader: opened.store, Scanner: opened.store, Directory: opened.store, Default: plan}}
	return opened, nil
}

// backends is the one place that chooses a backend: AUDITLOG_STORE names
// one of them, each opened from its own configuration section, for every
// command that reads or writes events (serve, export-periodic, tenant).
// A third backend is a package implementing eventStore (with
// storetest.Run as its conformance test) and one entry here.
var backends = map[string]func(m *Main, ctx context.Context, plan audit.Plan) (*openedStore, error){
	"sqlite":        (*Main).sqliteStore,
	"elasticsearch": (*Main).elasticsearchBackend,
}

// backendNames are the values of AUDITLOG_STORE.
func backendNames() []string { return slices.Sorted(maps.Keys(backends)) }

// openBackend opens the configured backend as it is.
func (m *Main) openBackend(ctx context.Context, plan audit.Plan) (*openedStore, error) {
	open, ok := backends[m.Config.Store]
	if !ok {
		return nil, fmt.Errorf("AUDITLOG_STORE=%q: want %s", m.Config.Store, strings.Join(backendNames(), " or "))
	}
	return open(m, ctx, plan)
}

// elasticsearchBackend opens the Elasticsearch store of the ES section.
func (m *Main) elasticsearchBackend(ctx context.Context, plan audit.Plan) (*openedStore, error) {
	client, err := m.esClient()
	if err != nil {
		return nil, err
	}
	store, err := m.elasticsearchStore(ctx, client, plan, false)
	if err != nil {
		return nil, err
	}
	opened := &openedStore{store: store, ready: api.ReadinessCheck{Name: "elasticsearch", Check: client.Ping}}
	if store.ILMOwnsRetention() {
		opened.unhonoured = audit.Errorf(audit.ENOTSUPPORTED, "legal holds need the service's lifecycle pass, and AUDITLOG_ES_ILM=retention lets the cluster's ILM delete backing indices on its own: set AUDITLOG_ES_ILM=backstop (the default)")
	}
	return opened, nil
}

// sqliteStore opens the embedded store in the data directory; its
// retention is a purge every Retention.Interval.
func (m *Main) sqliteStore(ctx context.Context, plan audit.Plan) (*openedStore, error) {
	dir := m.Config.DataDir
	if err := os.MkdirAll(dir, 0o700); err != nil { // the data directory: its owner's alone
		return nil, fmt.Errorf("data dir %s (AUDITLOG_DATA_DIR): %w", dir, err)
	}
	accept, err := m.acceptor(m.writesEvents())
	if err != nil {
		return nil, err
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "audit.db"), DefaultPlan: plan, CacheMiB: m.Config.SQLiteCacheMiB, Accept: accept})
	if err != nil {
		return nil, err
	}
	m.onClose(func(context.Context) error { return store.Close() })
	interval := m.Config.Retention.Interval
	refusals := retentionRefusals(m.Registry)
	return &openedStore{store: store, ready: api.ReadinessCheck{Name: "sqlite", Check: store.Ping},
		retention: func(ctx context.Context) {
			store.PurgeLoop(ctx, interval, func(pass retention.Pass, err error) {
				reportRetention(m.Logger, refusals, pass)
				if err != nil {
					m.Logger.Warn("retention purge failed; the next pass retries", "err", err)
				} else if pass.Deleted > 0 || pass.Held > 0 {
					m.Logger.Info("retention purge", "deleted", pass.Deleted, "kept_by_legal_holds", pass.Held)
				}
			})
		}}, nil
}

// retentionRefusals counts what retention passes would not act on, by
// kind (kept, restored): any is an alert.
func retentionRefusals(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_retention_refusals_total",
		Help: "What retention passes would not act on: events kept past their cut-off because they are not as the service accepted them (kept), directory plans the tenants' logs do not record, put back (restored). Any is an alert."}, []string{"kind"})
	reg.MustRegister(c)
	return c
}

// reportRetention logs, as errors, and counts what a pass would not act on.
func reportRetention(logger *slog.Logger, refusals *prometheus.CounterVec, pass retention.Pass) {
	kept, restored := pass.Problems()
	for _, k := range kept {
		logger.Error(k)
	}
	for _, r := range restored {
		logger.Error(r)
	}
	refusals.WithLabelValues("kept").Add(float64(len(kept)))
	refusals.WithLabelValues("restored").Add(float64(len(restored)))
}

// elasticsearchStore detects the cluster and bootstraps the store
// (templates, policies, the tenant directory). With wait, it retries
// until ctx ends (the indexer starts before the cluster is up); without,
// each step gets one bounded attempt (serve refuses to start without its
// store).
func (m *Main) elasticsearchStore(ctx context.Context, client *elasticsearch.Client, plan audit.Plan, wait bool) (*elasticsearch.Store, error) {
	attempt := func(what string, timeout time.Duration, f func(ctx context.Context) error) error {
		if wait {
			bo := backoff.New(200*time.Millisecond, 15*time.Second)
			return backoff.Retry(ctx, bo, func(err error) { m.Logger.Warn(what+" failed; retrying", "err", err) }, func() error { return f(ctx) })
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := f(actx); err != nil {
			return fmt.Errorf("%s at %s: %w", what, maskURL(m.Config.ES.URL), err)
		}
		return nil
	}
	var caps elasticsearch.Capabilities
	if err := attempt("detecting elasticsearch", 30*time.Second, func(ctx context.Context) (err error) { caps, err = client.Detect(ctx); return err }); err != nil {
		return nil, err
	}
	if caps.ILM && m.Config.ES.ILM == "off" {
		caps.ILM = false // the path of clusters without ILM
		m.Logger.Info("AUDITLOG_ES_ILM=off: no ILM policy is installed; the lifecycle pass rolls over and deletes")
	}
	m.Logger.Info("elasticsearch detected", "capabilities", caps, "missing", caps.Missing())
	accept, err := m.acceptor(m.writesEvents())
	if err != nil {
		return nil, err
	}
	cfg := m.esStoreConfig(plan)
	cfg.Accept = accept
	store, err := elasticsearch.NewStore(client, caps, cfg)
	if err != nil {
		return nil, err
	}
	if err := attempt("bootstrapping elasticsearch", 60*time.Second, store.Bootstrap); err != nil {
		return nil, err
	}
	return store, nil
}

// writesEvents reports whether this command writes events (and so tags
// them at their acceptance): every one but log verify, which only reads
// (stream writes the records of the pauses it makes into the tenants'
// logs).
func (m *Main) writesEvents() bool { return m.Command != "log" }

// esStoreConfig is the Elasticsearch store's section of the configuration
// (validated by the binder's choices and ranges).
func (m *Main) esStoreConfig(plan audit.Plan) elasticsearch.StoreConfig {
	return elasticsearch.StoreConfig{DefaultPlan: plan, ScanPageSize: m.Config.Export.ScanPage,
		NewTenants: elasticsearch.Layout(m.Config.ES.TenantLayout), PromoteAbove: int64(m.Config.ES.PromoteAbove),
		Log: m.Config.Log.queue(), ILMBackstop: m.ilmBackstop()}
}

// ilmBackstop is how long after the lifecycle pass a backstop ILM policy
// deletes (AUDITLOG_ES_ILM=backstop), 0 otherwise.
func (m *Main) ilmBackstop() time.Duration {
	if m.Config.ES.ILM == "backstop" {
		return 7 * 24 * time.Hour
	}
	return 0
}
