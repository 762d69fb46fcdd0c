package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// MaxWorstCaseRSS is the documented bound (docs/api.md, "Limits") on the peak
// resident memory of one `serve` (the production build, not the test
// binary: the race detector of make test multiplies memory) answering the
// worst requests of every read endpoint, one at a time, over a tenant
// whose events span years, with the largest ingest requests and a page of
// the largest events. Measured alone: about 360 MiB on SQLite (much of it
// the page caches of its five connections, outside the Go heap), about
// 280 MiB on Elasticsearch. An unbounded request (one-minute stats over
// years reached 1,728 MiB with fewer events) exceeds it.
const MaxWorstCaseRSS = 768 << 20

// MaxSettledRSS is the documented bound (docs/api.md, "Limits") on the resident
// memory of that `serve` once the worst requests are over: the Go heap is
// back near its idle size and returned to the system, and what stays is
// the embedded store's page caches, at most 64 MiB for each of its five
// connections (SQLite cache_size). A request whose memory is held after
// it ends (the stats request that stayed at 4.2 GB) exceeds it.
const MaxSettledRSS = 512 << 20

// maxSettledHeap bounds the Go heap in use, and the heap kept from the
// system without being used, once the worst requests are over.
const maxSettledHeap = 64 << 20

// TestWorstCaseRequestsStayBounded runs, against a real `serve` child
// process on each store, the requests that once exhausted memory or that
// could: one-minute stats over years with no range (it answered 665 MB
// and held 4.2 GB), the largest groupings, the largest pages sorted and
// searched by prefixes and by the costliest search-language query, the
// deepest page, and exports. Each answer must be
// a 2xx or a 4xx naming its parameter, never a 5xx, and the child's peak
// RSS (VmHWM) must stay under MaxWorstCaseRSS.
func TestWorstCaseRequestsStayBounded(t *testing.T) {
	stores := map[string][]string{"sqlite": {"AUDITLOG_STORE=sqlite"}}
	if esURL := testenv.ElasticsearchURL(t); esURL != "" {
		stores["elasticsearch"] = []string{"AUDITLOG_STORE=elasticsearch", "AUDITLOG_ES_URL=" + esURL,
			"AUDITLOG_ES_INDEX_PREFIX=" + testenv.Name("auditlog-limits"), "AUDITLOG_PERIODIC_SIGNING_KEY=" + testKeyFile(t), "AUDITLOG_ACCEPT_KEY=" + testAcceptKey(t)}
	}
	bin := productionBinary(t)
	for name, vars := range stores {
		t.Run(name, func(t *testing.T) { worstCases(t, bin, vars) })
	}
}

// productionBinary builds `auditlog` as make build does: memory is
// measured on what runs in production, not on the race-instrumented test
// binary.
func productionBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "auditlog")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func worstCases(t *testing.T, bin string, vars []string) {
	addr := freePort(t)
	base := "http://" + addr
	cmd := childOf(t, bin, append(vars, "AUDITLOG_HTTP_ADDR="+addr, "AUDITLOG_DATA_DIR="+t.TempDir(), "AUDITLOG_JWT_SECRET=s3cret",
		"AUDITLOG_INGEST_TOKEN=svc", "AUDITLOG_RATE_LIMIT=0", "AUDITLOG_LOG_LEVEL=warn"), "serve")
	waitReady(t, base)
	const n = 30000
	// Six years: within the default (Enterprise) plan's retention of seven,
	// which every read path enforces.
	g := gen.New(gen.Config{Seed: 17, Tenants: 1, FirstTenantID: demoTenant, Start: time.Now().AddDate(-6, 0, 0), End: time.Now().Add(-time.Hour)}, n)
	for sent := 0; sent < n; sent += 1000 {
		batch := make([]audit.Event, 1000)
		for i := range batch {
			batch[i] = g.Next()
		}
		body, _ := json.Marshal(batch)
		if res, out := request(t, "POST", base+"/api/audit-events", "svc", body); res.StatusCode != 200 {
			t.Fatalf("ingest: %d %s", res.StatusCode, out)
		}
	}
	// 150 events of about 240 KiB, the newest: the first page of 1,000
	// would be 36 MB without the page budget.
	bigState := json.RawMessage(`{"prompt":"` + strings.Repeat("x", 240<<10) + `"}`)
	for b := 0; b < 3; b++ {
		batch := make([]audit.Event, 50)
		for i := range batch {
			e := g.Next()
			// A creation carrying its state only: an update's before,
			// after and diff must agree (Sensitive changes).
			e.ID, e.Timestamp, e.Action = "", audit.NewTimestamp(time.Now().Add(-time.Duration(b*50+i+1)*time.Second)), audit.ActionCreate
			e.Before, e.After, e.Diff = nil, bigState, nil
			batch[i] = e
		}
		body, _ := json.Marshal(batch)
		if res, out := request(t, "POST", base+"/api/audit-events", "svc", body); res.StatusCode != 200 || !strings.Contains(string(out), `"accepted":50`) {
			t.Fatalf("ingest of large events: %d %.300s", res.StatusCode, out)
		}
	}
	tok := token(t, "s3cret", audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant})
	testenv.Eventually(t, time.Minute, func() error {
		_, body := request(t, "GET", base+"/api/audit-logs/stats?groupBy=outcome", tok, nil)
		var st stats.Stats
		if json.Unmarshal(body, &st) != nil || st.Total < n+150 {
			return fmt.Errorf("%s", body)
		}
		return nil
	})
	// The costliest free text allowed: eight short prefixes of common
	// tokens (search.MaxQPrefixes, search.MinPrefixLength); more is a 400.
	prefixes := "ac* co* ex* ad* ag* ht* re* ok*"
	// The costliest search: 16 terms, 8 prefixes (one negated), 27 values,
	// lists, negations and CIDR blocks (search.MaxQTerms, MaxQValues).
	worstSearch := "ac* co* ex* ad* -ag* ht* re* ok* action:create,update,delete,access -type:did,queue " +
		"ip:10.0.0.0/8,192.0.0.0/2,2001:db8::/32,203.0.113.0/24 -ip:100.64.0.0/10 " +
		"category:configuration,security,sensitive_access,integration,cross_tenant -role:agent created:>=2020-01-01 outcome:success,failure"
	tooMany := strings.TrimSpace(strings.Repeat("a* e* i* o* u* ", 17))
	for _, tc := range []struct {
		path  string
		field string // the parameter a 400 must name; "" when it must succeed
	}{
		{"/api/audit-logs/stats?interval=1m", "interval"},
		{"/api/audit-logs/stats?interval=1m&groupBy=actor.email", "interval"},
		{"/api/audit-logs/stats?interval=1m&from=2000-01-01T00:00:00Z", "interval"},
		{"/api/audit-logs/stats?interval=1m&to=2030-01-01T00:00:00Z", "interval"},
		{"/api/audit-logs/stats?interval=1m&from=2000-01-01T00:00:00Z&to=2030-01-01T00:00:00Z", "interval"},
		{"/api/audit-logs/stats?interval=2d&groupBy=actor.email", ""},
		{"/api/audit-logs/stats?interval=1h&groupBy=resource.type&from=" + url.QueryEscape(time.Now().Add(-80*24*time.Hour).UTC().Format(time.RFC3339)), ""},
		{"/api/audit-logs/stats?groupBy=actor.email&q=" + url.QueryEscape(prefixes), ""},
		{"/api/audit-logs?pageSize=1000", ""},
		{"/api/audit-logs?pageSize=1000&sort=actor.email", ""},
		{"/api/audit-logs?pageSize=1000&sort=resource.type&order=desc&q=" + url.QueryEscape(prefixes), ""},
		{"/api/audit-logs?pageSize=1000&page=10", ""},
		{"/api/audit-logs?pageSize=1000&page=11", "page"},
		{"/api/audit-logs?pageSize=1000&sort=actor.email&q=" + url.QueryEscape(worstSearch), ""},
		{"/api/audit-logs/stats?groupBy=actor.email&interval=1d&from=2026-01-01T00:00:00Z&q=" + url.QueryEscape(worstSearch), ""},
		{"/api/audit-logs?pageSize=1000&q=" + url.QueryEscape(strings.Repeat("x", 513)), "q"},
		{"/api/audit-logs?pageSize=1000&q=" + url.QueryEscape(tooMany), "q"},
		{"/api/audit-logs/stats?groupBy=actor.email&q=" + url.QueryEscape("a*"), "q"},
		{"/api/audit-logs/export.csv?from=" + url.QueryEscape(time.Now().Add(-400*24*time.Hour).UTC().Format(time.RFC3339)), ""},
	} {
		res, body := request(t, "GET", base+tc.path, tok, nil)
		switch {
		case res.StatusCode >= 500:
			t.Errorf("%s: %d %s", tc.path, res.StatusCode, body)
		case tc.field == "" && res.StatusCode >= 300:
			t.Errorf("%s: %d %.300s, want success", tc.path, res.StatusCode, body)
		case tc.field != "" && (res.StatusCode != 400 || !strings.Contains(string(body), `"field":"`+tc.field+`"`)):
			t.Errorf("%s: %d %.300s, want a 400 naming %s", tc.path, res.StatusCode, body, tc.field)
		}
	}
	// The whole tenant as an asynchronous export, read back.
	job := startJob(t, "POST", base+"/api/audit-logs/exports?async=true", tok)
	done := waitJob(t, base, tok, job.ID, 2*time.Minute, isDone)
	if done.RowsWritten < n {
		t.Errorf("export wrote %d rows, want at least %d", done.RowsWritten, n)
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("peak RSS of serve: %d MiB (bound %d MiB)", peak>>20, MaxWorstCaseRSS>>20)
	if peak > MaxWorstCaseRSS {
		t.Errorf("peak RSS %d MiB over the documented bound of %d MiB", peak>>20, MaxWorstCaseRSS>>20)
	}
	// Memory is returned afterwards: with no request running, the heap
	// shrinks back and the runtime hands what it freed to the system
	// (the scavenger, after the next collection; at worst the periodic
	// one, every two minutes).
	testenv.Eventually(t, 4*time.Minute, func() error {
		m := goMemory(t, base)
		rss := procStatus(t, cmd.Process.Pid, "VmRSS:")
		if m.inuse > maxSettledHeap || m.idle-m.released > maxSettledHeap || rss > MaxSettledRSS {
			return fmt.Errorf("not settled: RSS %d MiB (bound %d MiB), heap in use %d MiB, heap kept unused %d MiB (bound %d MiB)",
				rss>>20, MaxSettledRSS>>20, m.inuse>>20, (m.idle-m.released)>>20, maxSettledHeap>>20)
		}
		t.Logf("settled: RSS %d MiB, heap in use %d MiB, heap kept unused %d MiB", rss>>20, m.inuse>>20, (m.idle-m.released)>>20)
		return nil
	})
}

// goMemory reads the Go heap gauges of a server's /metrics.
func goMemory(t *testing.T, base string) (m struct{ inuse, idle, released int64 }) {
	t.Helper()
	_, body := request(t, "GET", base+"/metrics", "", nil)
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_memstats_heap_inuse_bytes":
			m.inuse = int64(v)
		case "go_memstats_heap_idle_bytes":
			m.idle = int64(v)
		case "go_memstats_heap_released_bytes":
			m.released = int64(v)
		}
	}
	if m.inuse == 0 {
		t.Fatalf("no Go heap gauges in /metrics: %.300s", body)
	}
	return m
}

// peakRSS reads the peak resident set size (VmHWM) of a process.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	return procStatus(t, pid, "VmHWM:")
}

// procStatus reads a size in kB of /proc/<pid>/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
