package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/sqlite"
)

// benchLoad (issue 45): `auditlog serve` as shipped (its rate limit and
// in-flight bounds at their defaults), as a process, on 1M events of ten
// tenants, under the panel's mix of requests offered by vegeta at rising
// rates with 1,000 events/s of ingest alongside: the highest rate served
// with p99 ≤ 500 ms and no error; then ten times that rate: how fast the
// refusals come, whether anything else fails, and the server's memory.
// Both stores.
func benchLoad(ctx context.Context, e *env) ([]result, error) {
	return eachLoadStore(ctx, "auditbench-load", func(store, dir, bin string) ([]result, error) {
		n := max(20000, int(1000000*e.scale))
		g := gen.New(gen.Config{Seed: 45, Tenants: 10, WithIDs: true}, n)
		srv, err := startLoaded(ctx, e, store, dir, bin, g, n)
		if err != nil {
			return nil, err
		}
		defer srv.stop()
		return loadRuns(ctx, e, store, srv, g, n)
	})
}

// eachLoadStore runs one load benchmark on each store of loadStores,
// with the shipped binary built into a temporary directory (name).
func eachLoadStore(ctx context.Context, name string, run func(store, dir, bin string) ([]result, error)) ([]result, error) {
	dir, err := os.MkdirTemp("", name)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin, err := buildAuditlog(ctx, dir)
	if err != nil {
		return nil, err
	}
	var out []result
	for _, store := range loadStores() {
		rows, err := run(store, dir, bin)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", store, err)
		}
		out = append(out, rows...)
	}
	return out, nil
}

// startLoaded writes g's n events into a new store, starts serve on it
// and waits for the steady state a running service is in: on SQLite
// until serve has sealed the loaded events (the bulk load queued them
// all); on Elasticsearch loadStore waits until the bulk load's segments
// are merged. Neither is measured instead of the requests.
func startLoaded(ctx context.Context, e *env, store, dir, bin string, g *gen.Generator, n int) (*process, error) {
	vars, err := loadStore(ctx, e, store, dir, g, n)
	if err != nil {
		return nil, err
	}
	srv, err := startProcess(ctx, bin, filepath.Join(dir, store), vars)
	if err != nil {
		return nil, err
	}
	if store == "SQLite" {
		if err := waitSealed(ctx, srv, n); err != nil {
			srv.stop()
			return nil, err
		}
	}
	return srv, nil
}

// loadStore writes g's n events into a new store and returns the
// variables that make serve read it.
func loadStore(ctx context.Context, e *env, store, dir string, g *gen.Generator, n int) ([]string, error) {
	t0 := time.Now()
	defer func() {
		log.Printf("  %s: loaded %d events of 10 tenants in %s", store, n, time.Since(t0).Round(time.Second))
	}()
	if store == "SQLite" {
		data := filepath.Join(dir, store, "data")
		if err := os.MkdirAll(data, 0o755); err != nil {
			return nil, err
		}
		s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: filepath.Join(data, "audit.db")})
		if err != nil {
			return nil, err
		}
		defer s.Close()
		if err := loadEvents(ctx, s, g, n, 1); err != nil {
			return nil, err
		}
		return []string{"AUDITLOG_DATA_DIR=" + data, "AUDITLOG_ACCEPT_KEY=" + e.acceptFile}, nil
	}
	s, err := freshStoreWith(ctx, e, enterprise(g.Tenants()), elasticsearch.StoreConfig{Accept: benchAccept})
	if err != nil {
		return nil, err
	}
	if err := loadEvents(ctx, s, g, n, 4); err != nil {
		return nil, err
	}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil); err != nil {
		return nil, err
	}
	if err := waitMerged(ctx, s); err != nil {
		return nil, err
	}
	return []string{"AUDITLOG_DATA_DIR=" + filepath.Join(dir, store, "data"), "AUDITLOG_STORE=elasticsearch", "AUDITLOG_ES_URL=" + e.esURL,
		"AUDITLOG_ES_INDEX_PREFIX=" + s.Client().Config().IndexPrefix, "AUDITLOG_PERIODIC_SIGNING_KEY=" + e.keyFile, "AUDITLOG_ACCEPT_KEY=" + e.acceptFile}, nil
}

// panelTargets are the panel's requests of each tenant: the first page,
// the two typical queries, a search, the 7-day histogram, an event's
// detail and the next page.
func panelTargets(srv *process, g *gen.Generator) ([]vegeta.Target, error) {
	var out []vegeta.Target
	for _, t := range g.Tenants() {
		ts, err := tenantTargets(srv, t, "actor:an* -action:access")
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// tenantTargets are a tenant's requests of the panel: the first page,
// the two typical queries, each search of searches, the 7-day histogram,
// an event's detail and the next page.
func tenantTargets(srv *process, t gen.Tenant, searches ...string) ([]vegeta.Target, error) {
	tok, _ := api.MintToken([]byte("bench"), audit.Principal{UserID: t.ID, Email: "bench@x.example", Role: audit.RoleAdmin, TenantID: t.ID}, 24*time.Hour, time.Now())
	h := http.Header{"Authorization": {"Bearer " + tok}}
	var first api.ListResponse
	if err := srv.getJSON("/api/audit-logs?pageSize=50", h, &first); err != nil || len(first.Data) < 8 || first.NextCursor == nil {
		return nil, fmt.Errorf("the first page of %s: %d events (%v)", t.ID, len(first.Data), err)
	}
	week := first.Data[0].Timestamp.Add(-7 * 24 * time.Hour).UTC().Format(time.RFC3339)
	paths := []string{"/api/audit-logs?pageSize=50", "/api/audit-logs?action=delete&resourceType=queue",
		"/api/audit-logs?action=access&resourceType=recording&sort=actor.email"}
	for _, q := range searches {
		paths = append(paths, "/api/audit-logs?q="+url.QueryEscape(q))
	}
	paths = append(paths, "/api/audit-logs/stats?interval=3h&from="+url.QueryEscape(week), "/api/audit-logs/"+url.PathEscape(first.Data[7].ID),
		"/api/audit-logs?pageSize=50&cursor="+url.QueryEscape(*first.NextCursor))
	out := make([]vegeta.Target, 0, len(paths))
	for _, p := range paths {
		out = append(out, vegeta.Target{Method: http.MethodGet, URL: srv.base + p, Header: h})
	}
	return out, nil
}

// attack offers targets at rate for d and returns what came back.
func attack(targets []vegeta.Target, rate int, d time.Duration) []*vegeta.Result {
	a := vegeta.NewAttacker(vegeta.Timeout(10*time.Second), vegeta.MaxWorkers(2000), vegeta.KeepAlive(true))
	var out []*vegeta.Result
	for r := range a.Attack(vegeta.NewStaticTargeter(targets...), vegeta.Rate{Freq: rate, Per: time.Second}, d, "panel") {
		out = append(out, r)
	}
	return out
}

func (p *process) getJSON(path string, h http.Header, v any) error {
	req, _ := http.NewRequest(http.MethodGet, p.base+path, nil)
	req.Header = h
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("GET %s: %d", path, res.StatusCode)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// loadStores are the stores the load benchmark runs on: both, or the one
// BENCH_LOAD_STORE names (a run that looks into one).
func loadStores() []string {
	if s := os.Getenv("BENCH_LOAD_STORE"); s != "" {
		return []string{s}
	}
	return []string{"SQLite", "Elasticsearch"}
}
