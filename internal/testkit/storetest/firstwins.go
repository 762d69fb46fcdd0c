package storetest

import (
	"context"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/restorejob"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// callers is how many goroutines race in each first-one-wins case.
const callers = 10

// race runs f from callers goroutines at once and returns their errors.
func race(f func(i int) error) []error {
	errs := make([]error, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// testFirstOneWins: wherever a key, a revision or a limit decides that
// one caller goes through, it is decided atomically in the store: of
// parallel callers, exactly the allowed number win and the others get
// the documented answer, never a second winner.
func testFirstOneWins(t *testing.T, b Backend) {
	t.Run("RestoreIdempotencyKey", func(t *testing.T) { raceRestoreCreate(t, b) })
	t.Run("ExportJobClaim", func(t *testing.T) { raceExportJobUpdate(t, b) })
	t.Run("ExportJobLimit", func(t *testing.T) { raceExportJobLimit(t, b) })
	t.Run("PeriodicState", func(t *testing.T) { racePeriodicState(t, b) })
}

func raceRestoreCreate(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant, key := uuid.NewString(), "one-key"
	var mu sync.Mutex
	created := 0
	stored := map[string]bool{}
	errs := race(func(i int) error {
		r := restorejob.Record{Request: restorejob.Request{RequestID: restorejob.RequestID(tenant, key), TenantID: tenant,
			Resource: audit.Resource{Type: "ivr", ID: "r1"}, SourceEventID: "evt_audit_x", Version: restorejob.Before,
			State: json.RawMessage(`{"a":1}`), OmittedFields: []string{}, Reason: string(rune('a' + i))}, IdempotencyKey: key, Status: restorejob.Pending}
		got, ok, err := b.Restores.CreateRestore(ctx, r)
		mu.Lock()
		defer mu.Unlock()
		if ok {
			created++
		}
		stored[got.Reason] = true
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if created != 1 || len(stored) != 1 {
		t.Fatalf("%d callers created the request, and they were answered %d different requests; want 1 and 1", created, len(stored))
	}
}

func newJob(tenant string) *exportjob.Job {
	return &exportjob.Job{ID: uuid.NewString(), TenantID: tenant, Owner: exportjob.Owner{UserID: uuid.NewString(), Email: "u@example.com", Role: "admin"},
		Filter: audit.Filter{TenantID: tenant}, Sort: audit.DefaultSort, State: exportjob.Queued, CreatedAt: time.Now().UTC()}
}

func raceExportJobUpdate(t *testing.T, b Backend) {
	ctx := context.Background()
	j := newJob(uuid.NewString())
	if err := b.Jobs.CreateExportJob(ctx, j, callers); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	errs := race(func(i int) error {
		mine := *j
		mine.Claim(uuid.NewString(), now, time.Minute)
		return b.Jobs.UpdateExportJob(ctx, &mine)
	})
	expectWinners(t, errs, 1, audit.ECONFLICT)
}

func raceExportJobLimit(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant := uuid.NewString()
	const limit = 3
	errs := race(func(int) error { return b.Jobs.CreateExportJob(ctx, newJob(tenant), limit) })
	expectWinners(t, errs, limit, audit.ERATELIMIT)
	active, err := b.Jobs.FindExportJobs(ctx, exportjob.Query{TenantID: tenant, States: []exportjob.State{exportjob.Queued, exportjob.Running}, Limit: 100})
	if err != nil || len(active) != limit {
		t.Fatalf("%d active jobs stored (%v), want %d", len(active), err, limit)
	}
	// A job that ends frees its place.
	done := active[0]
	done.State = exportjob.Cancelled
	if err := b.Jobs.UpdateExportJob(ctx, &done); err != nil {
		t.Fatal(err)
	}
	if err := b.Jobs.CreateExportJob(ctx, newJob(tenant), limit); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
	if err := b.Jobs.CreateExportJob(ctx, newJob(tenant), limit); audit.ErrorCode(err) != audit.ERATELIMIT {
		t.Fatalf("over the limit again: %v", err)
	}
}

func racePeriodicState(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant := uuid.NewString()
	st, err := b.Periodic.PeriodicState(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	// Every caller read the same (absent) state: one create wins; then
	// every caller read the same revision: one update wins.
	for round := range 2 {
		base := st
		errs := race(func(i int) error {
			mine := base
			mine.NextStart = time.Date(2026, 10, 1+i, 0, 0, 0, 0, time.UTC)
			return b.Periodic.PutPeriodicState(ctx, &mine)
		})
		expectWinners(t, errs, 1, audit.ECONFLICT)
		if st, err = b.Periodic.PeriodicState(ctx, tenant); err != nil || st.Rev == base.Rev {
			t.Fatalf("round %d: %+v %v", round, st, err)
		}
	}
}

// expectWinners checks that exactly n callers succeeded and that every
// other one got code.
func expectWinners(t *testing.T, errs []error, n int, code string) {
	t.Helper()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case audit.ErrorCode(err) != code:
			t.Fatalf("a losing caller got %v, want %s", err, code)
		}
	}
	if won != n {
		t.Fatalf("%d of %d parallel callers won, want %d", won, callers, n)
	}
}
