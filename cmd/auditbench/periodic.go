package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

// periodicDay is the day the periodic benchmark's events fill.
var periodicDay = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// benchPeriodic measures the Enterprise periodic export (issue 16) on
// Elasticsearch: one day of one tenant's events written as the window's
// data file, next to the raw point-in-time read of the same window; the
// peak RSS of `auditlog export-periodic --once` at 10% and at 100% of the
// events; and `verify` next to sha256sum over the same files.
func benchPeriodic(ctx context.Context, e *env) ([]result, error) {
	n := max(20000, int(1000000*e.scale))
	big, tenant, err := dayStore(ctx, e, n, 21)
	if err != nil {
		return nil, err
	}
	win := periodicexport.Window{TenantID: tenant, Start: periodicDay, End: periodicDay.Add(24 * time.Hour)}
	f := audit.Filter{TenantID: tenant, From: &win.Start, To: &win.End}
	_, key, _ := ed25519.GenerateKey(nil)
	var rate, pit, verifyMB, deepMB, shaMB []float64
	for run := 0; run <= e.runs; run++ {
		dir, err := os.MkdirTemp("", "auditbench-periodic")
		if err != nil {
			return nil, err
		}
		w := &periodicexport.Writer{Bucket: localfs.Dir{Root: dir}, Prefix: "auditlog", Key: key, TempDir: dir, Now: time.Now}
		t0 := time.Now()
		file, err := w.WriteFile(ctx, win, func(yield func(*audit.Event) error) error {
			return big.ScanEvents(ctx, f, audit.Sort{Field: audit.SortTimestamp}, func(batch []audit.Event) error {
				for i := range batch {
					if err := yield(&batch[i]); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			return nil, err
		}
		r := float64(file.Count) / time.Since(t0).Seconds()
		if _, err := w.Seal(ctx, win, []periodic.DigestFile{file}, nil); err != nil {
			return nil, err
		}
		c, _, err := pitCeiling(ctx, big, f)
		if err != nil {
			return nil, err
		}
		v, deep, s, err := verifyVsSha256sum(ctx, dir, tenant, key, run%2 == 0)
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
		log.Printf("  run %d: export %d rows %.0f rows/s, PIT read %.0f rows/s; verify %.0f MB/s (deep %.0f), sha256sum %.0f MB/s", run, file.Count, r, c, v, deep, s)
		if run > 0 {
			rate, pit, verifyMB, deepMB, shaMB = append(rate, r), append(pit, c), append(verifyMB, v), append(deepMB, deep), append(shaMB, s)
		}
	}
	rss, err := periodicRSS(ctx, e, big, n)
	if err != nil {
		return nil, err
	}
	method := fmt.Sprintf("Elasticsearch: one Enterprise tenant holds %d generated events, all in one day (%s). Export: `periodicexport.Writer.WriteFile` of that day's window "+
		"(the scheduler's own path: the point-in-time scan of the window in file order, each event as a JSON line, gzip and SHA-256 of the lines, through a temporary file, "+
		"into a local directory; the scan reads the window in ascending time, slice by slice). Ceiling: the raw point-in-time read of the same window, pages parsed, "+
		"no event decoded (the export benchmark's ceiling), in descending time, the index's own order and its fastest read, one page after the other. "+
		"The export fetches the next page while it decodes and writes the current one (two stages), so it can pass the ceiling. "+
		"One warm-up, then %d runs, each measuring both.", n, periodicDay.Format("2006-01-02"), e.runs)
	return []result{
		{Name: "Periodic export of one day: rows/s vs the PIT read", Unit: "rows/s", Samples: rate, Ceiling: pit, Target: "≥ 80% of the PIT read", MinRatio: 0.8, Method: method},
		rss,
		{Name: "verify vs sha256sum, same files", Unit: "MB/s", Samples: verifyMB, Ceiling: shaMB, Target: "≥ 80% of sha256sum", MinRatio: 0.8,
			Method: "`periodicexport.Verify` (what `auditlog verify --dir` runs: the listing, each digest's signature and link, then each data file's stored object hashed " +
				"and compared with the digest's `objectSha256`) over the window's data file and digest just written, against `sha256sum` of the same data file, " +
				"both in MB of the files as stored (gzip), alternating which goes first; the files are in the page cache for both. Same runs as the export."},
		{Name: "verify --deep vs sha256sum, same files", Unit: "MB/s", Samples: deepMB, Ceiling: shaMB, Target: "(reported)",
			Method: "`periodicexport.Verify` with `Deep` (`auditlog verify --deep`: every data file also gunzipped, its lines hashed and counted, about 8× the stored bytes), " +
				"right after the plain verify of the same run, in MB of the stored files."},
	}, nil
}

// dayStore loads n events of one tenant, all in periodicDay, into a new
// prefix.
func dayStore(ctx context.Context, e *env, n int, seed uint64) (*elasticsearch.Store, string, error) {
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, WithIDs: true, Start: periodicDay, End: periodicDay.Add(24 * time.Hour)}, n)
	tenants := enterprise(g.Tenants())
	s, err := freshStore(ctx, e, tenants)
	if err != nil {
		return nil, "", err
	}
	t0 := time.Now()
	if err := loadEvents(ctx, s, g, n, 4); err != nil {
		return nil, "", err
	}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil); err != nil {
		return nil, "", err
	}
	log.Printf("  loaded %d events of one day in %s", n, time.Since(t0).Round(time.Second))
	return s, tenants[0].ID, nil
}

// verifyVsSha256sum times Verify, a deep Verify and sha256sum over the
// files of dir, in MB of the stored files per second.
func verifyVsSha256sum(ctx context.Context, dir, tenant string, key ed25519.PrivateKey, verifyFirst bool) (float64, float64, float64, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "auditlog", tenant, "*", "*", "*", "*.ndjson.gz"))
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return 0, 0, 0, err
		}
		size += st.Size()
	}
	mb := float64(size) / (1 << 20)
	keys := map[string]ed25519.PublicKey{signing.KeyID(key.Public().(ed25519.PublicKey)): key.Public().(ed25519.PublicKey)}
	verify := func(opts periodicexport.Options) (float64, error) {
		t0 := time.Now()
		rep, err := periodicexport.Verify(ctx, localfs.Dir{Root: dir}, "auditlog", tenant, keys, opts, func(string) {})
		if err == nil && !rep.OK() {
			err = fmt.Errorf("the benchmark's own export does not verify: %d problems", rep.Problems)
		}
		return mb / time.Since(t0).Seconds(), err
	}
	sum := func() (float64, error) {
		t0 := time.Now()
		out, err := exec.CommandContext(ctx, "sha256sum", files...).CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("sha256sum: %v %s", err, out)
		}
		return mb / time.Since(t0).Seconds(), nil
	}
	var v, s float64
	var err1, err2 error
	if verifyFirst {
		v, err1 = verify(periodicexport.Options{})
		s, err2 = sum()
	} else {
		s, err2 = sum()
		v, err1 = verify(periodicexport.Options{})
	}
	if err1 != nil || err2 != nil {
		return 0, 0, 0, errors.Join(err1, err2)
	}
	deep, err := verify(periodicexport.Options{Deep: true})
	return v, deep, s, err
}

// periodicRSS runs `auditlog export-periodic --once` over the big store
// and over one of a tenth of its events, and compares their peak RSS.
func periodicRSS(ctx context.Context, e *env, big *elasticsearch.Store, n int) (result, error) {
	small, _, err := dayStore(ctx, e, max(2000, n/10), 22)
	if err != nil {
		return result{}, err
	}
	dir, err := os.MkdirTemp("", "auditbench-periodic-rss")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	bin, err := buildAuditlog(ctx, dir)
	if err != nil {
		return result{}, err
	}
	var bigMB, smallMB []float64
	for run := 0; run <= e.runs; run++ {
		for i, s := range []*elasticsearch.Store{big, small} {
			// Each run exports the whole day: the state of the run before
			// (which windows are out) lives in the store, not in the data
			// directory, and would leave this one nothing to do.
			if err := resetPeriodic(ctx, s); err != nil {
				return result{}, fmt.Errorf("resetting the periodic export state: %w", err)
			}
			data := filepath.Join(dir, fmt.Sprintf("data-%d-%d", run, i))
			cmd := exec.CommandContext(ctx, bin, "export-periodic", "--once")
			cmd.Env = append(os.Environ(), "AUDITLOG_STORE=elasticsearch", "AUDITLOG_ES_URL="+e.esURL, "AUDITLOG_ES_INDEX_PREFIX="+s.Client().Config().IndexPrefix,
				"AUDITLOG_DATA_DIR="+data, "AUDITLOG_PERIODIC_SIGNING_KEY="+e.keyFile, "AUDITLOG_ACCEPT_KEY="+e.acceptFile, "AUDITLOG_PERIODIC_SETTLE=0s", "AUDITLOG_LOG_LEVEL=warn")
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			mb, err := peakRSS(cmd)
			if err != nil {
				return result{}, fmt.Errorf("export-periodic --once: %w", err)
			}
			if n := countFiles(filepath.Join(data, "periodic-exports"), ".ndjson.gz"); n == 0 {
				return result{}, fmt.Errorf("export-periodic --once wrote no data file: nothing was measured")
			}
			os.RemoveAll(data)
			if run > 0 && i == 0 {
				bigMB = append(bigMB, mb)
			} else if run > 0 {
				smallMB = append(smallMB, mb)
			}
		}
	}
	return result{Name: fmt.Sprintf("Periodic export peak RSS, %d events (ceiling column: %d)", n, max(2000, n/10)), Unit: "MB", Samples: bigMB, Ceiling: smallMB,
		Target: "flat: ≤ 1.25× the tenth", MaxRatio: 1.25,
		Method: "Peak resident memory (VmHWM of /proc/<pid>/status, read every 10 ms while it runs) of a whole `auditlog export-periodic --once` process (start, store, one Enterprise tenant's windows from its first event to now, exit) " +
			"against Elasticsearch, over the store above and over one holding a tenth of the events in the same day, alternating; each run in a new data directory. " +
			"Before each run the tenant's periodic export state is deleted from the store, so that every run exports the whole day (a run that writes no data file fails the benchmark). " +
			"Memory stays flat because the window is scanned page by page and written through a temporary file."}, nil
}

// peakRSS runs cmd and returns its peak resident set in MB: its VmHWM,
// read every 10 ms while it runs. (The maxrss that wait4 reports for a
// child is not it: Go starts children with vfork, and the child's maxrss
// keeps the high-water mark of the parent's memory it shared until exec,
// this benchmark's own hundreds of MB: both sizes measured 894 MB.)
func peakRSS(cmd *exec.Cmd) (float64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	var peak float64
	for {
		select {
		case err := <-done:
			if err == nil && peak == 0 {
				err = fmt.Errorf("it exited before its memory could be read")
			}
			return peak, err
		case <-t.C:
			if mb, err := vmHWM(cmd.Process.Pid); err == nil {
				peak = max(peak, mb)
			}
		}
	}
}

// countFiles counts the files under dir whose names end with suffix.
func countFiles(dir, suffix string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			n++
		}
		return nil
	})
	return n
}

// resetPeriodic deletes every periodic export state and record of s's
// prefix (one _bulk of deletes: the test build has no _delete_by_query).
func resetPeriodic(ctx context.Context, s *elasticsearch.Store) error {
	var found struct {
		Hits struct {
			Hits []struct {
				Index string `json:"_index"`
				ID    string `json:"_id"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.PeriodicIndex()+","+s.PeriodicRecordsIndex()+"/_search?size=10000&ignore_unavailable=true&allow_no_indices=true",
		map[string]any{"_source": false}, &found); err != nil {
		return err
	}
	if len(found.Hits.Hits) == 0 {
		return nil
	}
	var body strings.Builder
	for _, h := range found.Hits.Hits {
		line, _ := json.Marshal(map[string]any{"delete": map[string]string{"_index": h.Index, "_id": h.ID}})
		body.Write(line)
		body.WriteByte('\n')
	}
	res, err := s.Client().Do(ctx, http.MethodPost, "/_bulk?refresh=true", []byte(body.String()))
	if err == nil && res.Status != http.StatusOK {
		err = fmt.Errorf("bulk delete: status %d", res.Status)
	}
	return err
}
