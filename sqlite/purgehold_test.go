package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/sqlite"
)

// TestPurgeKeepsWhatLegalHoldsKeep (issue 55): a Starter tenant (30 days)
// with an event a day for 120 days, and holds of every kind: a time range,
// a query over all time, one released before the purge, one whose release
// waits out its grace period while the clock runs. Ten purges, each three
// days later than the one before: after each, an event is stored exactly
// when it is within retention or a hold in force keeps it (the expected
// set is computed here from the events' times and actions, not by the
// store's filter), and a hold's own records stay while it holds.
func TestPurgeKeepsWhatLegalHoldsKeep(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := start
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: path, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 55, Tenants: 1, WithIDs: true}, 200)
	tn := &g.Tenants()[0]
	if err := retention.ChangePlan(ctx, s, s, tn.ID, audit.PlanStarter, audit.PlanEnterprise, start.Add(-121*day)); err != nil {
		t.Fatal(err)
	}
	var events []audit.Event
	for i := 120; i >= 1; i-- {
		events = append(events, g.NextFor(tn, start.Add(-time.Duration(i)*day)))
	}
	write := func(evs ...audit.Event) {
		t.Helper()
		res, err := s.WriteEvents(ctx, evs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != audit.WriteCreated {
				t.Fatalf("write: %+v", r)
			}
		}
	}
	write(events...)

	counsel := audit.Principal{UserID: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", Email: "counsel@acme.example", Role: hold.Role, TenantID: tn.ID}
	span := func(from, to time.Duration) hold.Scope {
		f, t := audit.NewTimestamp(start.Add(-from)), audit.NewTimestamp(start.Add(-to))
		return hold.Scope{From: &f, To: &t}
	}
	place := func(r hold.Request, at time.Time) hold.Hold {
		t.Helper()
		h, rec, err := hold.Place(counsel, tn.ID, r, at)
		if err != nil {
			t.Fatal(err)
		}
		write(rec)
		return h
	}
	release := func(h hold.Hold, at time.Time, grace time.Duration) hold.Hold {
		t.Helper()
		h, rec, err := hold.AskRelease(counsel, h, at, grace)
		if err != nil {
			t.Fatal(err)
		}
		write(rec)
		return h
	}
	rangeHold := place(hold.Request{Matter: "range", Reason: "r", Scope: span(100*day, 90*day)}, start.Add(-3*day))
	queryHold := place(hold.Request{Matter: "deletions", Reason: "r", Scope: hold.Scope{Q: "action:delete"}}, start.Add(-3*day))
	gone := release(place(hold.Request{Matter: "released", Reason: "r", Scope: span(80*day, 70*day)}, start.Add(-3*day)), start.Add(-2*day), time.Hour)
	waiting := release(place(hold.Request{Matter: "waiting", Reason: "r", Scope: span(60*day, 55*day)}, start.Add(-3*day)), start.Add(-day), hold.DefaultGrace)

	keeps := func(e *audit.Event, now time.Time) bool {
		ts := e.Timestamp.Time
		in := func(from, to time.Duration) bool { return !ts.Before(start.Add(-from)) && ts.Before(start.Add(-to)) }
		return in(100*day, 90*day) || e.Action == audit.ActionDelete ||
			now.Before(waiting.Release.EffectiveAt.Time) && in(60*day, 55*day)
	}
	sealer, keys := storetest.NewSealer(t, s, 0)
	verify := func(when string) seal.Report {
		t.Helper()
		storetest.SealAll(t, sealer)
		rep, err := seal.Verify(ctx, s, s, tn.ID, keys)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		return rep
	}
	storetest.SealAll(t, sealer) // every event in a leaf before any goes
	var total int64
	for run := 1; run <= 10; run++ {
		clock = start.Add(time.Duration(run) * 3 * day)
		pass, err := s.Purge(ctx)
		if err != nil {
			t.Fatal(err)
		}
		total += pass.Held
		if len(pass.Kept) != 0 {
			t.Fatalf("run %d kept and named %+v", run, pass.Kept)
		}
		cutoff := audit.Cutoff(audit.PlanStarter, clock)
		for i := range events {
			e := &events[i]
			want := !e.Timestamp.Before(cutoff) || keeps(e, clock)
			_, err := s.GetEvent(ctx, tn.ID, e.ID)
			if got := err == nil; got != want {
				t.Fatalf("run %d (now %s, cut-off %s): %s of %s (%s) stored %v, want %v (%v)",
					run, clock.Format(time.DateOnly), cutoff.Format(time.DateOnly), e.ID, e.Timestamp.Format(time.DateOnly), e.Action, got, want, err)
			}
		}
		records, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tn.ID, ResourceTypes: []string{hold.ResourceType}}, PageSize: 100, Sort: audit.DefaultSort})
		if err != nil {
			t.Fatal(err)
		}
		byHold := map[string]int{}
		for _, e := range records.Events {
			byHold[e.Resource.ID]++
		}
		if byHold[rangeHold.ID] != 1 || byHold[queryHold.ID] != 1 {
			t.Fatalf("run %d: the records of holds in force: %v", run, byHold)
		}
		if run == 10 && (byHold[gone.ID] != 0 || byHold[waiting.ID] != 0) {
			t.Fatalf("run %d: the records of released holds, past retention, stayed: %v", run, byHold)
		}
		if rep := verify("run " + strconv.Itoa(run)); len(rep.Findings) != 0 || rep.Expired == 0 {
			t.Fatalf("run %d: log verify: %+v", run, rep)
		}
	}
	// A pass that ignored a hold (as a service without holds would): its
	// record names no hold, and log verify names the hold it ignored.
	forged := retention.Deletion{TenantID: tn.ID, Plan: audit.PlanStarter, Before: audit.Cutoff(audit.PlanStarter, clock)}
	write(forged.Records(clock)...)
	rep := verify("a pass that ignored the holds")
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != "unauthorized" || !strings.Contains(rep.Findings[0].Detail, rangeHold.ID) ||
		!strings.Contains(rep.Findings[0].Detail, queryHold.ID) || strings.Contains(rep.Findings[0].Detail, gone.ID) {
		t.Fatalf("a pass that ignored the holds: %+v", rep.Findings)
	}
	// A held event deleted behind the service is missing, not expired.
	var victim string
	for i := range events {
		if events[i].Action == audit.ActionDelete && events[i].Timestamp.Before(audit.Cutoff(audit.PlanStarter, clock)) {
			victim = events[i].ID
			break
		}
	}
	execSQL(t, path, `DELETE FROM events WHERE id = ?`, victim)
	named := false
	for _, f := range verify("a held event deleted behind the service").Findings {
		named = named || f.Kind == "missing" && f.EventID == victim
	}
	if !named {
		t.Fatalf("the held event %s deleted behind the service is not named missing", victim)
	}
	if total == 0 {
		t.Fatal("no pass counted a held event")
	}
}
