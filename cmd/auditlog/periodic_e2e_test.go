package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestExportPeriodicSurvivesSIGKILL: `auditlog export-periodic` is killed
// with SIGKILL while it writes a window; once its lease lapses,
// `export-periodic --once` finishes the work. Every window is exported
// once (the files hold exactly the store's events), and `auditlog verify`
// passes with the public key the export left in the tenant's prefix.
func TestExportPeriodicSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	end := time.Now().UTC().Truncate(24 * time.Hour)
	g := gen.New(gen.Config{Seed: 16, Tenants: 1, WithIDs: true, FirstTenantID: demoTenant, Start: end.Add(-3 * 24 * time.Hour), End: end}, 90000)
	accepttest.File(t, dir, AcceptKeyFile) // the key serve reads in this data directory
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	events := make([]audit.Event, 90000)
	for i := range events {
		events[i] = g.Next()
	}
	storetest.Write(t, s, events)
	if err := s.SetPlan(context.Background(), demoTenant, audit.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	s.Close()
	env := []string{"AUDITLOG_DATA_DIR=" + dir, "AUDITLOG_PERIODIC_SETTLE=0s", "AUDITLOG_PERIODIC_LEASE=10s", "AUDITLOG_LOG_LEVEL=warn"}
	first := child(t, env, "export-periodic")
	exports := filepath.Join(dir, "periodic-exports", "auditlog", demoTenant)
	// Killed while a window is being written: one digest is out, and a
	// file is in the making.
	deadline := time.Now().Add(60 * time.Second)
	for {
		digests, _ := filepath.Glob(filepath.Join(exports, "digest", "*", "*", "*", "*.json"))
		writing, _ := filepath.Glob(filepath.Join(dir, "periodic-tmp", "window-*"))
		if len(digests) >= 1 && len(digests) < 3 && len(writing) > 0 {
			break
		}
		if len(digests) >= 3 || time.Now().After(deadline) {
			t.Fatalf("never caught in the middle of a window (%d digests)", len(digests))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	time.Sleep(10 * time.Second) // the lease lapses
	if code := run([]string{"export-periodic", "--once"}, envOf(env), io.Discard, os.Stderr); code != 0 {
		t.Fatalf("export-periodic --once exited %d", code)
	}
	// One window per closed day from the first event's: three, or four
	// when the test crossed midnight UTC (today's window closed, empty).
	windows := int(time.Now().UTC().Truncate(24*time.Hour).Sub(end.Add(-3*24*time.Hour)) / (24 * time.Hour))
	var got []string
	files, _ := filepath.Glob(filepath.Join(exports, "*", "*", "*", "*.ndjson.gz"))
	for _, f := range files {
		got = append(got, fileIDs(t, f)...)
	}
	want := make([]string, len(events))
	for i, e := range events {
		want[i] = e.ID
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(files) != windows || !slices.Equal(got, want) {
		t.Fatalf("%d data files holding %d events, want %d files holding the store's %d", len(files), len(got), windows, len(want))
	}
	// Verified as an auditor would: the keys and the delivered windows
	// from the service's API, not from the copy under test.
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_LOG_LEVEL": "warn"})
	tok := token(t, "s3cret", audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant})
	var out strings.Builder
	if code := run([]string{"verify", "--dir", filepath.Join(dir, "periodic-exports"), "--tenant", demoTenant, "--api", "http://" + m.Addr(), "--token", tok},
		envOf(nil), &out, os.Stderr); code != 0 || !strings.Contains(out.String(), fmt.Sprintf("verified %d digests", windows)) ||
		!strings.Contains(out.String(), ": all valid\n") || !strings.Contains(out.String(), "/api/export-keys") {
		t.Fatalf("verify exited %d:\n%s", code, out.String())
	}
	// The newest window cut off: the API still lists it.
	last := filepath.Join(exports, "digest", end.Add(-24*time.Hour).Format("2006/01/02"))
	if err := os.RemoveAll(last); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"verify", "--dir", filepath.Join(dir, "periodic-exports"), "--tenant", demoTenant, "--api", "http://" + m.Addr(), "--token", tok},
		envOf(nil), &out, io.Discard); code != 1 || !strings.Contains(out.String(), "TRUNCATED "+"auditlog/"+demoTenant+"/digest/"+end.Add(-24*time.Hour).Format("2006/01/02")) {
		t.Fatalf("verify of a cut-off copy exited %d:\n%s", code, out.String())
	}
}

// envOf is a getenv of the KEY=value pairs.
func envOf(pairs []string) func(string) string {
	return func(k string) string {
		for _, p := range pairs {
			if v, ok := strings.CutPrefix(p, k+"="); ok {
				return v
			}
		}
		return ""
	}
}

// fileIDs reads the ids of a gzip NDJSON file.
func fileIDs(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}
