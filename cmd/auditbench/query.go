package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/panel"
)

// benchQuery measures API latency on one tenant holding 1,000,000 events
// (at scale 1): p50 and p99 of the default first page, a filtered sorted
// page, a cursor page at depth 100,000 and a stats query, each next to the
// same request sent straight to Elasticsearch.
func benchQuery(ctx context.Context, e *env) ([]result, error) {
	n := max(20000, int(1000000*e.scale))
	g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, n)
	// Its writes are queued for sealing: the log benchmark seals them and
	// measures proofs at this size.
	s, err := freshStoreWith(ctx, e, enterprise(g.Tenants()), elasticsearch.StoreConfig{Accept: benchAccept, Log: true})
	if err != nil {
		return nil, err
	}
	loadStart := time.Now()
	if err := loadEvents(ctx, s, g, n, 4); err != nil {
		return nil, err
	}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil); err != nil {
		return nil, err
	}
	loaded := time.Since(loadStart)
	log.Printf("  loaded %d events in %s", n, loaded.Round(time.Second))
	search := "/" + s.TenantPattern(g.Tenants()[0].ID) + "/_search"
	direct := func(body any) (float64, error) {
		t0 := time.Now()
		var out map[string]any
		err := s.Client().DoJSON(ctx, http.MethodPost, search, body, &out)
		return ms(time.Since(t0)), err
	}
	e.queryStore, e.queryTenant, e.queryN = s, g.Tenants()[0].ID, n
	refresh := func() error {
		return s.Client().DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil)
	}
	return measureQueries(ctx, e, "Elasticsearch", s, s, g.Tenants()[0].ID, n, loaded, 100, direct, refresh)
}

// measureQueries runs the query set against a store holding n events of
// tenant: the default first page, the spec's filtered sorted page, a
// cursor page at depth 100,000 and a stats query, through the real API
// over HTTP. With direct set, each request alternates with the same
// query sent straight to the backend.
func measureQueries(ctx context.Context, e *env, store string, r api.Reader, w audit.EventWriter, tenant string, n int,
	loaded time.Duration, maxP99 float64, direct func(body any) (float64, error), refresh func() error) ([]result, error) {
	depth := min(100000, n/2)
	srv := benchAPI(ctx, r, w, tenant)
	defer srv.close()
	call, cursors := srv.call, srv.cursors
	cursor, err := walkToDepth(call, depth)
	if err != nil {
		return nil, err
	}
	deep, err := cursors.Decode(cursor, audit.Filter{TenantID: tenant}, audit.DefaultSort)
	if err != nil {
		return nil, err
	}
	versions, err := loadVersions(ctx, w, tenant)
	if err != nil {
		return nil, err
	}
	if refresh != nil {
		if err := refresh(); err != nil {
			return nil, err
		}
	}
	filtered := audit.Query{Filter: audit.Filter{TenantID: tenant, Actions: []audit.Action{"access"}, ResourceTypes: []string{"recording"}},
		Sort: audit.Sort{Field: audit.SortActorEmail}, PageSize: 50, Page: 1}
	queries := []measuredQuery{
		{"default first page", "/api/audit-logs",
			elasticsearch.SearchBody(audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}, 0, 50)},
		{"filtered, sorted page", "/api/audit-logs?action=access&resourceType=recording&sort=actor.email", elasticsearch.SearchBody(filtered, 0, 50)},
		{fmt.Sprintf("cursor page at depth %d", depth), "/api/audit-logs?pageSize=50&cursor=" + url.QueryEscape(cursor),
			elasticsearch.SearchBody(audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 50, After: &deep.After, Counted: deep.Total}, 0, 51)},
		{"stats (groupBy action, 1d histogram)", "/api/audit-logs/stats?groupBy=action&interval=1d",
			elasticsearch.StatsBody(stats.Query{Filter: audit.Filter{TenantID: tenant}, GroupBy: stats.GroupAction, Interval: 24 * time.Hour, MaxGroups: 50})},
	}
	panel, err := panelStatsQueries(ctx, r, tenant)
	if err != nil {
		return nil, err
	}
	queries = append(queries, panel...)
	searches, err := searchQueries(tenant)
	if err != nil {
		return nil, err
	}
	queries = append(queries, searches...)
	filters, err := filterQueries(ctx, r, tenant)
	if err != nil {
		return nil, err
	}
	queries = append(queries, filters...)
	queries = append(queries, historyQueries(tenant, versions)...)
	sm, err := sampleQueries(e, store, queries, call, direct)
	if err != nil {
		return nil, err
	}
	out := queryResults(e, store, n, loaded, maxP99, queries, sm, direct != nil)
	pr, err := measurePanel(ctx, e, store, srv, r, tenant, n)
	if err != nil {
		return nil, fmt.Errorf("panel in the browser: %w", err)
	}
	return append(out, pr...), nil
}

// panelStatsQueries are the histogram requests of the panel's first
// view (the last 7 days, 3-hour buckets) and of its view of one actor,
// the 7 days before the tenant's newest event.
func panelStatsQueries(ctx context.Context, r audit.EventReader, tenant string) ([]measuredQuery, error) {
	sp, err := r.EventSpan(ctx, audit.Filter{TenantID: tenant})
	if err != nil {
		return nil, err
	}
	page, err := r.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, PageSize: 1, Page: 1})
	if err != nil || len(page.Events) == 0 {
		return nil, fmt.Errorf("panel stats: no event to take an actor from (%v)", err)
	}
	from := sp.Last.Add(-7 * 24 * time.Hour).Truncate(time.Second)
	email := strings.ToLower(page.Events[0].Actor.Email)
	q := url.Values{"from": {from.Format(time.RFC3339)}, "interval": {"3h"}}
	fa := url.Values{"from": {from.Format(time.RFC3339)}, "interval": {"3h"}, "actorEmail": {email}}
	return []measuredQuery{
		{"stats: the panel's 7-day histogram (3 h buckets)", "/api/audit-logs/stats?" + q.Encode(),
			elasticsearch.StatsBody(stats.Query{Filter: audit.Filter{TenantID: tenant, From: &from}, Interval: 3 * time.Hour, MaxGroups: 50})},
		{"stats: one actor's 7-day histogram (3 h buckets)", "/api/audit-logs/stats?" + fa.Encode(),
			elasticsearch.StatsBody(stats.Query{Filter: audit.Filter{TenantID: tenant, From: &from, ActorEmail: email}, Interval: 3 * time.Hour, MaxGroups: 50})},
	}, nil
}

// The search-language queries (issue 29): five qualifiers with a
// negation, a list and a CIDR block; and a bare word found in changed
// values (the integrations' providers), which only the values search
// finds.
const (
	searchFiveQualifiers = "actor:an* -action:access ip:198.0.0.0/8 category:configuration,security outcome:success"
	searchBareWord       = "zendesk"
)

// searchQueries are the search-language queries, first page of 50.
func searchQueries(tenant string) ([]measuredQuery, error) {
	var out []measuredQuery
	for _, x := range []struct{ name, q string }{
		{"search: five qualifiers, a negation and a CIDR (" + searchFiveQualifiers + ")", searchFiveQualifiers},
		{"search: a bare word over changed values (" + searchBareWord + ")", searchBareWord},
		{"search: a CIDR block over all time (" + loadCIDR + ")", loadCIDR},
	} {
		text, terms, err := search.Parse(x.q)
		if err != nil {
			return nil, err
		}
		f := audit.Filter{TenantID: tenant, Q: text, Terms: terms}
		f.Normalize()
		out = append(out, measuredQuery{x.name, "/api/audit-logs?q=" + url.QueryEscape(x.q),
			elasticsearch.SearchBody(audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 50, Page: 1}, 0, 50)})
	}
	return out, nil
}

// measuredQuery is one measured query: its API path and the same query's
// body for the backend.
type measuredQuery struct {
	name, path string
	body       any
}

// querySamples are the per-run figures of each query, by name.
type querySamples struct {
	samples                      int
	apiP50, apiP99, dP50, counts map[string][]float64
}

// benchServer is the real API, and the panel, served over HTTP on
// loopback for one tenant's admin.
type benchServer struct {
	call    func(path string) ([]byte, error) // a GET with the admin's token
	cursors *cursor.Codec
	base    string // http://127.0.0.1:port
	token   string
	close   func()
}

// retainedReader reads events and their aggregations through the plans'
// retention.
type retainedReader struct {
	*audit.Retained
	agg stats.Retained
}

func (r retainedReader) EventStats(ctx context.Context, q stats.Query) (stats.Stats, error) {
	return r.agg.EventStats(ctx, q)
}

// benchAPI serves the real API and the panel in front of r and w.
func benchAPI(ctx context.Context, r api.Reader, w audit.EventWriter, tenant string) *benchServer {
	secret := []byte("bench-secret")
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	cursors := cursor.NewCodec([]byte("bench-cursor"))
	// Reads go through the plan's retention as serve's do: every query
	// then has a time range (the cut-off), which chooses the planner's
	// index on SQLite.
	if dir, ok := r.(audit.TenantDirectory); ok {
		ret := &audit.Retained{Reader: r, Directory: dir, Default: audit.PlanEnterprise}
		r = retainedReader{ret, stats.Retained{Reader: r, Retention: ret}}
	}
	mux := http.NewServeMux()
	mux.Handle("/", api.NewServer(api.Config{RequestTimeout: 30 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: r, Writer: w, Verifier: v, Cursors: cursors},
	}).Handler())
	mux.Handle(panel.Prefix, panel.Handler(panel.Config{FrameAncestors: []string{"'self'"}}))
	srv := httptest.NewServer(mux)
	tok, _ := api.MintToken(secret, audit.Principal{UserID: tenant, Email: "bench@x.example", Role: audit.RoleAdmin, TenantID: tenant}, 24*time.Hour, time.Now())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	call := func(path string) ([]byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			return nil, fmt.Errorf("GET %s: %d %s", path, res.StatusCode, b)
		}
		return b, nil
	}
	return &benchServer{call: call, cursors: cursors, base: srv.URL, token: tok, close: srv.Close}
}

// walkToDepth walks the default order by cursor, 1,000 events a page, and
// returns the cursor at depth.
func walkToDepth(call func(string) ([]byte, error), depth int) (string, error) {
	// The cursor at depth 100,000 of the default order, reached by walking.
	cursor := ""
	for walked := 0; walked < depth; walked += 1000 {
		path := "/api/audit-logs?pageSize=1000"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		b, err := call(path)
		if err != nil {
			return "", err
		}
		var lr api.ListResponse
		if err := json.Unmarshal(b, &lr); err != nil || lr.NextCursor == nil {
			return "", fmt.Errorf("walking to depth %d: %v", depth, err)
		}
		cursor = *lr.NextCursor
	}
	return cursor, nil
}

// sampleQueries runs each query up to a number of times per run,
// alternating with the backend when direct is set; one warm-up run.
func sampleQueries(e *env, store string, queries []measuredQuery, call func(string) ([]byte, error), direct func(body any) (float64, error)) (*querySamples, error) {
	samples := max(50, int(200*min(1, e.scale*4)))
	apiP50, apiP99, dP50, counts := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for run := 0; run <= e.runs; run++ {
		for _, q := range queries {
			var apiLat, dLat []float64
			// At most `samples` requests, and no more than a 10 s budget
			// once 10 are in: a slow query gets fewer samples, not an
			// endless run.
			qStart := time.Now()
			for i := 0; i < samples && (i < 10 || time.Since(qStart) < 10*time.Second); i++ {
				t0 := time.Now()
				if _, err := call(q.path); err != nil {
					return nil, err
				}
				apiLat = append(apiLat, ms(time.Since(t0)))
				if direct != nil && q.body != nil {
					d, err := direct(q.body)
					if err != nil {
						return nil, err
					}
					dLat = append(dLat, d)
				}
			}
			if run == 0 {
				continue // warm-up
			}
			counts[q.name] = append(counts[q.name], float64(len(apiLat)))
			apiP50[q.name] = append(apiP50[q.name], percentile(apiLat, 50))
			apiP99[q.name] = append(apiP99[q.name], percentile(apiLat, 99))
			if len(dLat) > 0 {
				dP50[q.name] = append(dP50[q.name], percentile(dLat, 50))
			}
		}
		log.Printf("  %s run %d done", store, run)
	}
	return &querySamples{samples: samples, apiP50: apiP50, apiP99: apiP99, dP50: dP50, counts: counts}, nil
}

// queryResults turns the samples into the results, with their method.
func queryResults(e *env, store string, n int, loaded time.Duration, maxP99 float64, queries []measuredQuery, sm *querySamples, hasDirect bool) []result {
	samples, apiP50, apiP99, dP50, counts := sm.samples, sm.apiP50, sm.apiP99, sm.dP50, sm.counts
	method := fmt.Sprintf("%s: one tenant holds %d generated events (loaded in %s). The real API (`api.Server` over HTTP on loopback, auth included) answers each query up to %d times per run (at least 10, within a 10 s budget per query and run)", store, n, loaded.Round(time.Second), samples)
	if hasDirect {
		method += ", alternating with the same request body sent straight to Elasticsearch"
	}
	method += fmt.Sprintf("; one warm-up run, then %d runs. Figures are the median over runs of each run's percentile, in ms.", e.runs)
	var out []result
	for _, q := range queries {
		notes := fmt.Sprintf("p50 per run: %s ms; requests per run: %s.", fmtList2(apiP50[q.name]), fmtList(counts[q.name]))
		if len(dP50[q.name]) > 0 {
			notes += fmt.Sprintf(" The same query straight to Elasticsearch, p50 per run: %s ms (the API's own overhead is the difference: decoding, auth, encoding, HTTP).", fmtList2(dP50[q.name]))
		}
		r := result{Name: store + " API p99: " + q.name, Unit: "ms", Samples: apiP99[q.name], Target: "(reported)", Method: method, Notes: notes}
		// Elasticsearch has a target for every query (issue 4); SQLite for
		// the filtered, sorted page (issue 6).
		if hasDirect || strings.HasPrefix(q.name, "filtered") {
			r.Target, r.Max = fmt.Sprintf("p99 ≤ %.0f ms", maxP99), maxP99
		}
		// Each filter of the panel and the spec's typical queries: 100 ms
		// on both stores (issue 45).
		if strings.HasPrefix(q.name, "filter:") {
			r.Target, r.Max = "p99 ≤ 100 ms", 100
		}
		// Stats: 300 ms on both stores (issue 15: the panel's histogram);
		// Elasticsearch keeps its stricter target above.
		if strings.HasPrefix(q.name, "stats") && !hasDirect {
			r.Target, r.Max = "p99 ≤ 300 ms", 300
		}
		// The search language: 100 ms on Elasticsearch, 150 ms on SQLite
		// (issue 29).
		if strings.HasPrefix(q.name, "search") {
			r.Target, r.Max = "p99 ≤ 150 ms", 150
			if hasDirect {
				r.Target, r.Max = "p99 ≤ 100 ms", 100
			}
		}
		// Free text and an address block alone over all time: 50 ms on
		// both stores (issue 58).
		if strings.Contains(q.name, "bare word") || strings.Contains(q.name, "CIDR block over all time") {
			r.Target, r.Max = "p99 ≤ 50 ms", 50
		}
		// History and compare: 50 ms on both stores (issue 14).
		if strings.HasPrefix(q.name, "history") || strings.HasPrefix(q.name, "compare") {
			r.Target, r.Max = "p99 ≤ 50 ms", 50
			r.Method = method + fmt.Sprintf(" The resource is a recording policy with %d versions (a creation, then updates with before, after and diff) written among the generated events; compare reads two versions 980 apart and diffs their states.", historyVersions)
		}
		out = append(out, r)
	}
	cur := queries[2].name
	out = append(out, result{Name: store + " cursor at depth vs page 1 (p50)", Unit: "ms", Samples: apiP50[cur], Ceiling: apiP50[queries[0].name],
		Target: "≤ 1.5× page 1", MaxRatio: 1.5, Method: method + " The ratio compares the p50 of the cursor page with the p50 of the default first page."})
	if hasDirect {
		out = append(out, result{Name: "API vs Elasticsearch, default page (p50)", Unit: "ms", Samples: apiP50[queries[0].name], Ceiling: dP50[queries[0].name],
			Target: "(reported)", Method: method + " The ceiling column is the same search sent straight to Elasticsearch; the ratio is the API's latency over it."})
		api, direct := apiP50[queries[0].name], dP50[queries[0].name]
		over := make([]float64, min(len(api), len(direct)))
		for i := range over {
			over[i] = api[i] - direct[i]
		}
		out = append(out, result{Name: "API overhead over Elasticsearch, default page (p50)", Unit: "ms", Samples: over, Target: "≤ 1 ms", Max: 1,
			Method: method + " Each run's p50 through the API minus the p50 of the same search sent straight to Elasticsearch in the same run.",
			Notes: "Where it goes (a CPU profile of the API's list handler, `-cpuprofile`, scale 0.1): decoding the 50 hits into events (goccy then; the strict decoder since, which is slower per document: docs/design.md) about 35%, " +
				"writing the answer (`ListResponse.AppendJSON`, events written by hand) about 25%, reading the hits out of the search answer (`jsonenc` scanner) about 15%, " +
				"the request to Elasticsearch and the rest (token check, parameters, retention, cursor) the remainder; besides the CPU, one more loopback HTTP exchange. " +
				"Before issue 31's work the hits were read with encoding/json's token stream (43% of the handler) and the answer re-compacted by `c.JSON`."})
	}
	return out
}

// loadEvents writes n events of the generator through the store with
// the given number of concurrent writers.
func loadEvents(ctx context.Context, s audit.EventWriter, g interface{ Next() audit.Event }, n, writers int) error {
	batches := make(chan []audit.Event, writers)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				res, err := s.WriteEvents(ctx, b)
				if err == nil {
					for _, r := range res {
						if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
							err = fmt.Errorf("load: %v %s", r.Status, r.Reason)
							break
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < n; i += 5000 {
		b := make([]audit.Event, 0, 5000)
		for j := i; j < min(i+5000, n); j++ {
			b = append(b, g.Next())
		}
		select {
		case batches <- b:
		case err := <-errs:
			close(batches)
			wg.Wait()
			return err
		}
	}
	close(batches)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

func fmtList2(xs []float64) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%.1f", x)
	}
	return out
}
