package export_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
)

// clock is a fake clock the test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// flakyScanner is the real SQLite store whose first scan fails as an
// unreachable store would.
type flakyScanner struct {
	audit.EventScanner
	mu    sync.Mutex
	fails int
}

func (f *flakyScanner) ScanEvents(ctx context.Context, fl audit.Filter, s audit.Sort, fn func([]audit.Event) error) error {
	f.mu.Lock()
	fail := f.fails > 0
	f.fails--
	f.mu.Unlock()
	if fail {
		return audit.Errorf(audit.EUNAVAILABLE, "connection refused")
	}
	return f.EventScanner.ScanEvents(ctx, fl, s, fn)
}

// notices records the owners' notices.
type notices struct {
	mu   sync.Mutex
	jobs []exportjob.Job
}

func (n *notices) NotifyExport(_ context.Context, j exportjob.Job) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.jobs = append(n.jobs, j)
	return nil
}

func (n *notices) all() []exportjob.Job {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]exportjob.Job(nil), n.jobs...)
}

// TestJobLifeOnAFakeClock runs the export service on the embedded store,
// with no Elasticsearch, S3 or SMTP, its time moved by hand: a failed
// attempt waits its retry delay (and not a moment less), the next attempt
// completes and its owner is told once, and the file is deleted at its
// expiry, not before.
func TestJobLifeOnAFakeClock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, data := sqliteWith(t, dir, 200)
	clk := &clock{now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	sent := &notices{}
	files := filepath.Join(dir, "files")
	svc := export.New(export.Config{Lease: time.Hour, Poll: 10 * time.Millisecond, MaxAttempts: 3, RetryDelay: time.Hour, Expiry: 24 * time.Hour,
		TempDir: filepath.Join(dir, "tmp")},
		export.Deps{Scanner: &flakyScanner{EventScanner: store, fails: 1}, Jobs: store, Files: localfs.Dir{Root: files}, Notifier: sent, Now: clk.Now})
	owner := audit.Principal{UserID: "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", Email: "owner@example.com", Role: audit.RoleAdmin, TenantID: data.A}
	job, err := svc.Submit(ctx, export.Request{Principal: owner, Filter: audit.Filter{TenantID: data.A}, Sort: audit.DefaultSort, Expected: int64(len(data.Events))})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done })
	state := func(want exportjob.State, attempts int) exportjob.Job {
		t.Helper()
		var j exportjob.Job
		testenv.Eventually(t, 20*time.Second, func() error {
			if j, err = svc.Job(ctx, owner, job.ID); err != nil {
				return err
			}
			if j.State != want || j.Attempts != attempts {
				return fmt.Errorf("state %s after %d attempts (error %q), want %s after %d", j.State, j.Attempts, j.Error, want, attempts)
			}
			return nil
		})
		return j
	}
	retry := state(exportjob.Queued, 1)
	if retry.NotBefore == nil || !retry.NotBefore.Equal(clk.Now().Add(time.Hour)) || !strings.Contains(retry.Error, "attempt 1 of 3 failed") {
		t.Fatalf("after the failed attempt: %+v", retry)
	}
	// Polls go by, the clock does not: the job waits.
	clk.Add(59 * time.Minute)
	time.Sleep(200 * time.Millisecond) // twenty polls; nothing may happen
	state(exportjob.Queued, 1)
	clk.Add(time.Minute)
	end := state(exportjob.Done, 2)
	if end.RowsWritten != int64(len(data.Events)) || end.Error != "" || !end.ExpiresAt.Equal(clk.Now().Add(24*time.Hour)) {
		t.Fatalf("done: %+v", end)
	}
	if n := sent.all(); len(n) != 1 || n[0].State != exportjob.Done || n[0].ID != job.ID {
		t.Fatalf("notices: %+v, want one, of the done job", n)
	}
	path := filepath.Join(files, end.FileKey)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the file: %v", err)
	}
	clk.Add(24*time.Hour - time.Second)
	if err := svc.Expire(ctx); err != nil {
		t.Fatal(err)
	}
	if j, _ := svc.Job(ctx, owner, job.ID); j.State != exportjob.Done {
		t.Fatalf("expired a second early: %s", j.State)
	}
	clk.Add(2 * time.Second)
	if err := svc.Expire(ctx); err != nil {
		t.Fatal(err)
	}
	if j, _ := svc.Job(ctx, owner, job.ID); j.State != exportjob.Expired || j.FileKey != "" {
		t.Fatalf("after the expiry: %+v", j)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file outlived its expiry: %v", err)
	}
}
