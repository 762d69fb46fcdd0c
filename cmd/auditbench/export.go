package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// exportPage is the page size of both the export and its ceiling.
const exportPage = 2000

// benchExport measures export jobs on Elasticsearch: rows/s of the real
// `auditlog serve` (a child process: PIT scan, CSV, gzip, file) next to
// the raw PIT read of the same events with no CSV work, and the server's
// peak RSS at about 100,000 and 1,000,000 rows.
func benchExport(ctx context.Context, e *env) ([]result, error) {
	s, tenant, err := exportDataset(ctx, e)
	if err != nil {
		return nil, err
	}
	// The small export: the oldest tenth of the events.
	tenth, err := tenthTimestamp(ctx, s, tenant)
	if err != nil {
		return nil, err
	}

	srv, err := startServer(ctx, e, s.Client().Config().IndexPrefix)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	tok, _ := api.MintToken([]byte("bench"), audit.Principal{UserID: "0f0e0d0c-0b0a-4909-8807-060504030201", Email: "bench@bench.example", Role: audit.RoleAdmin, TenantID: tenant}, 24*time.Hour, time.Now())

	type size struct {
		name  string
		query string
		f     audit.Filter
	}
	// The generated events end before 2026-11-21; the export's own
	// self-audit records (made now, in the same tenant) stay out.
	end := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	sizes := []size{
		{"small", "to=" + tenth.String(), audit.Filter{TenantID: tenant, To: &tenth.Time}},
		{"large", "to=" + audit.NewTimestamp(end).String(), audit.Filter{TenantID: tenant, To: &end}},
	}
	rate := map[string][]float64{}
	ceil := map[string][]float64{}
	rss := map[string][]float64{}
	cores := map[string][]float64{}
	rows := map[string]int64{}
	runs := min(e.runs, 3)
	for run := 0; run <= runs; run++ {
		for _, sz := range sizes {
			c, cn, err := pitCeiling(ctx, s, sz.f)
			if err != nil {
				return nil, err
			}
			job, peak, cpu, err := srv.export(ctx, tok, sz.query)
			if err != nil {
				return nil, err
			}
			took := job.FinishedAt.Sub(job.StartedAt.Time).Seconds()
			r := float64(job.RowsWritten) / took
			log.Printf("  run %d %s: export %d rows %.0f rows/s (server peak RSS %.0f MB, %.2f cores), PIT read %d rows %.0f rows/s",
				run, sz.name, job.RowsWritten, r, peak, cpu, cn, c)
			if job.RowsWritten != cn {
				return nil, fmt.Errorf("the export wrote %d rows, the PIT read %d", job.RowsWritten, cn)
			}
			rows[sz.name] = cn
			if run > 0 {
				rate[sz.name], ceil[sz.name] = append(rate[sz.name], r), append(ceil[sz.name], c)
				rss[sz.name], cores[sz.name] = append(rss[sz.name], peak), append(cores[sz.name], cpu)
			}
		}
	}
	method := func(name string) string {
		return fmt.Sprintf("An export job of %d rows (%s) on the real `auditlog serve`, a child process on the Elasticsearch store, local files: `POST /api/audit-logs/exports?async=true`, "+
			"timed by the job itself (startedAt to finishedAt: point-in-time scan by pages of %d, the next page fetched while the current one is decoded, by the strict decoder, and written; CSV, gzip, fsync, file stored). "+
			"Ceiling: the same point-in-time scan, same filter, sort and page size, from the benchmark process, one page after the other, finding each page's hits and sort values (`elasticsearch.ParseScanPage`, as the export does) but decoding no event and writing nothing. "+
			"One warm-up pair, then %d pairs, alternating. Server CPU during the job: %s cores.", rows[name], name, exportPage, runs, fmtList2(cores[name]))
	}
	out := []result{
		{Name: fmt.Sprintf("Export %s rows: rows/s vs the PIT read", thousands(rows["large"])), Unit: "rows/s", Samples: rate["large"], Ceiling: ceil["large"], MinRatio: 0.7,
			Target: "≥ 70% of the PIT read", Method: method("large")},
		{Name: fmt.Sprintf("Export %s rows: rows/s vs the PIT read", thousands(rows["small"])), Unit: "rows/s", Samples: rate["small"], Ceiling: ceil["small"], MinRatio: 0.7,
			Target: "≥ 70% of the PIT read", Method: method("small")},
		{Name: fmt.Sprintf("Export peak RSS, %s rows (ceiling column: %s rows)", thousands(rows["large"]), thousands(rows["small"])), Unit: "MB", Samples: rss["large"], Ceiling: rss["small"], MaxRatio: 1.25, Max: 150,
			Target: "< 150 MB, flat (1M ≤ 1.25× 100k)",
			Method: fmt.Sprintf("Peak resident memory (VmHWM of /proc/<pid>/status) of the `auditlog serve` process during each export job above, reset before each job (`echo 5 > /proc/<pid>/clear_refs`): %d rows against %d rows, same runs. "+
				"The server holds one page of events, one CSV row and the gzip window at a time.", rows["large"], rows["small"])},
	}
	return out, nil
}

// exportDataset is the query benchmark's tenant when it ran, or a fresh
// one of 1,000,000 events (scaled).
func exportDataset(ctx context.Context, e *env) (*elasticsearch.Store, string, error) {
	s, tenant := e.queryStore, e.queryTenant
	if s == nil {
		n := max(20000, int(1000000*e.scale))
		g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, n)
		var err error
		if s, err = freshStore(ctx, e, enterprise(g.Tenants())); err != nil {
			return nil, "", err
		}
		if err := loadEvents(ctx, s, g, n, 4); err != nil {
			return nil, "", err
		}
		if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil); err != nil {
			return nil, "", err
		}
		tenant = g.Tenants()[0].ID
	}
	return s, tenant, nil
}

// tenthTimestamp is the 10th percentile of the tenant's timestamps.
func tenthTimestamp(ctx context.Context, s *elasticsearch.Store, tenant string) (audit.Timestamp, error) {
	var pct struct {
		Aggregations struct {
			P struct {
				Values map[string]any `json:"values"`
			} `json:"p"`
		} `json:"aggregations"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.TenantPattern(tenant)+"/_search",
		map[string]any{"size": 0, "aggs": map[string]any{"p": map[string]any{"percentiles": map[string]any{"field": "@timestamp", "percents": []float64{10}}}}}, &pct); err != nil {
		return audit.Timestamp{}, err
	}
	p10, ok := pct.Aggregations.P.Values["10.0"].(float64)
	if !ok {
		return audit.Timestamp{}, fmt.Errorf("no 10th percentile of the timestamps: %v", pct.Aggregations.P.Values)
	}
	return audit.NewTimestamp(time.UnixMilli(int64(p10))), nil
}

// pitCeiling reads every event of f through a point in time, the way the
// export does, and parses the pages, but decodes no event.
func pitCeiling(ctx context.Context, s *elasticsearch.Store, f audit.Filter) (float64, int64, error) {
	c := s.Client()
	t0 := time.Now()
	var opened struct {
		ID string `json:"id"`
	}
	if err := c.DoJSON(ctx, http.MethodPost, "/"+s.TenantPattern(f.TenantID)+"/_pit?keep_alive="+elasticsearch.ScanKeepAlive, nil, &opened); err != nil {
		return 0, 0, err
	}
	pit := opened.ID
	defer c.DoJSON(context.WithoutCancel(ctx), http.MethodDelete, "/_pit", map[string]any{"id": pit}, nil)
	var after json.RawMessage
	var n int64
	for {
		body, _ := json.Marshal(elasticsearch.ScanBody(f, audit.DefaultSort, pit, exportPage, after))
		res, err := c.Do(ctx, http.MethodPost, elasticsearch.ScanPath, body)
		if err != nil {
			return 0, 0, err
		}
		page, err := elasticsearch.ParseScanPage(res.Body)
		if err != nil {
			return 0, 0, err
		}
		if len(page.Sources) == 0 {
			break
		}
		n += int64(len(page.Sources))
		pit = page.PitID
		after = page.Sorts[len(page.Sorts)-1]
	}
	return float64(n) / time.Since(t0).Seconds(), n, nil
}

// buildAuditlog builds cmd/auditlog into dir and returns its path.
func buildAuditlog(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "auditlog")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/auditlog")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building auditlog: %w", err)
	}
	return bin, nil
}

// server is `auditlog serve` as a child process.
type server struct {
	cmd  *exec.Cmd
	base string
	dir  string
}

func startServer(ctx context.Context, e *env, prefix string) (*server, error) {
	dir, err := os.MkdirTemp("", "auditbench-export")
	if err != nil {
		return nil, err
	}
	bin, err := buildAuditlog(ctx, dir)
	if err != nil {
		return nil, err
	}
	p, err := startProcess(ctx, bin, dir, []string{"AUDITLOG_DATA_DIR=" + filepath.Join(dir, "data"),
		"AUDITLOG_STORE=elasticsearch", "AUDITLOG_ES_URL=" + e.esURL, "AUDITLOG_ES_INDEX_PREFIX=" + prefix, "AUDITLOG_RATE_LIMIT=0", "AUDITLOG_PERIODIC_SIGNING_KEY=" + e.keyFile, "AUDITLOG_ACCEPT_KEY=" + e.acceptFile,
		"AUDITLOG_EXPORT_WORKERS=1", "AUDITLOG_EXPORT_POLL=50ms", "AUDITLOG_EXPORT_MAX_ACTIVE=100", fmt.Sprintf("AUDITLOG_EXPORT_SCAN_PAGE=%d", exportPage)})
	if err != nil {
		return nil, err
	}
	return &server{cmd: p.cmd, base: p.base, dir: dir}, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
	os.RemoveAll(s.dir)
}

// export runs one export job to its end and returns it with the server's
// peak RSS in MB and the cores it used meanwhile.
func (s *server) export(ctx context.Context, tok, query string) (api.ExportJobView, float64, float64, error) {
	pid := s.cmd.Process.Pid
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return api.ExportJobView{}, 0, 0, fmt.Errorf("resetting the peak RSS: %w", err)
	}
	cpu0, t0 := cpuTime(pid), time.Now()
	call := func(method, path string) ([]byte, int, error) {
		req, _ := http.NewRequestWithContext(ctx, method, s.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, 0, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return b, res.StatusCode, err
	}
	q := "async=true"
	if query != "" {
		q += "&" + query
	}
	body, code, err := call(http.MethodPost, "/api/audit-logs/exports?"+q)
	if err != nil || code != 202 {
		return api.ExportJobView{}, 0, 0, fmt.Errorf("export: %d %s %v", code, body, err)
	}
	var job api.ExportJobView
	if err := json.Unmarshal(body, &job); err != nil {
		return job, 0, 0, err
	}
	for {
		select {
		case <-ctx.Done():
			return job, 0, 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		body, code, err := call(http.MethodGet, job.StatusURL)
		if err != nil || code != 200 {
			return job, 0, 0, fmt.Errorf("status: %d %s %v", code, body, err)
		}
		if err := json.Unmarshal(body, &job); err != nil {
			return job, 0, 0, err
		}
		if job.State == exportjob.Failed {
			return job, 0, 0, fmt.Errorf("the export failed: %s", job.Error)
		}
		if job.State == exportjob.Done {
			break
		}
	}
	cores := (cpuTime(pid) - cpu0).Seconds() / time.Since(t0).Seconds()
	peak, err := vmHWM(pid)
	if err != nil {
		return job, 0, 0, err
	}
	// The files are not kept: delete this one.
	_, _, _ = call(http.MethodDelete, job.StatusURL)
	return job, peak, cores, nil
}

// vmHWM is the peak resident set of a process, in MB.
func vmHWM(pid int) (float64, error) { return procStatusMB(pid, "VmHWM") }

// procStatusMB is a memory field of /proc/<pid>/status (VmHWM, VmRSS),
// in MB.
func procStatusMB(pid int, field string) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
