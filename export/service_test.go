package export_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/sqlite"
)

// lostAnswer is the real SQLite job store with one fault injected: the
// first update after arm lands, but its caller hears "unavailable", as
// over a connection cut between the write and its answer.
type lostAnswer struct {
	exportjob.Store
	mu    sync.Mutex
	armed bool
	lost  *exportjob.Job // what the lost write stored
}

func (l *lostAnswer) UpdateExportJob(ctx context.Context, j *exportjob.Job) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	rev := j.Rev
	err := l.Store.UpdateExportJob(ctx, j)
	if err != nil || !l.armed {
		return err
	}
	l.armed = false
	stored := *j
	l.lost = &stored
	j.Rev = rev // the caller never learnt the new revision
	return audit.Errorf(audit.EUNAVAILABLE, "connection reset by peer (the write landed)")
}

func (l *lostAnswer) lostWrite() *exportjob.Job {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// TestClaimWithLostAnswerIsAdopted: a worker's claim lands but its answer
// is lost. The job must not sit "running" under a worker that does not
// run it until the lease runs out, nor spend an attempt: the next pass
// finds the claim landed and runs the job as claimed. The lease is an
// hour and one attempt is allowed, so only the adoption can finish it.
func TestClaimWithLostAnswerIsAdopted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, data := sqliteWith(t, dir, 300)

	jobs := &lostAnswer{Store: store}
	svc := export.New(export.Config{Lease: time.Hour, Poll: 20 * time.Millisecond, MaxAttempts: 1, TempDir: filepath.Join(dir, "tmp")},
		export.Deps{Scanner: store, Jobs: jobs, Files: localfs.Dir{Root: filepath.Join(dir, "files")}})
	owner := audit.Principal{UserID: "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", Email: "owner@example.com", Role: audit.RoleAdmin, TenantID: data.A}
	f := audit.Filter{TenantID: data.A}
	job, err := svc.Submit(ctx, export.Request{Principal: owner, Filter: f, Sort: audit.DefaultSort, Expected: int64(len(data.Events))})
	if err != nil {
		t.Fatal(err)
	}
	jobs.mu.Lock()
	jobs.armed = true // the next update is the claim
	jobs.mu.Unlock()

	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done })

	var end exportjob.Job
	testenv.Eventually(t, 20*time.Second, func() error {
		end, err = svc.Job(ctx, owner, job.ID)
		if err != nil {
			return err
		}
		if end.State != exportjob.Done {
			return fmt.Errorf("state %s (attempts %d, error %q)", end.State, end.Attempts, end.Error)
		}
		return nil
	})
	lost := jobs.lostWrite()
	if lost == nil || lost.State != exportjob.Running || lost.Attempts != 1 {
		t.Fatalf("the lost write was not the claim: %+v", lost)
	}
	if end.Attempts != 1 || end.RowsWritten != int64(len(data.Events)) || end.Error != "" {
		t.Fatalf("the adopted job: attempts %d, rows %d of %d, error %q", end.Attempts, end.RowsWritten, len(data.Events), end.Error)
	}
}

// sqliteWith opens a SQLite store in dir holding a generated dataset of
// n events.
func sqliteWith(t *testing.T, dir string, n int) (*sqlite.Store, *storetest.Dataset) {
	t.Helper()
	store, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	data := storetest.NewDataset(n)
	storetest.Write(t, store, data.All)
	return store, data
}
