package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/seal"
)

// HoldStore is what the legal hold scenario uses of a store.
type HoldStore interface {
	audit.EventWriter
	audit.EventReader
	audit.TenantDirectory
	audit.EventScanner
	vlog.Store
}

// HoldBackend is a store under the legal hold scenario (issue 55), on the
// clock the scenario moves.
type HoldBackend struct {
	Store HoldStore
	// Retain runs one pass of the store's retention at the clock's time.
	Retain func(t testing.TB) retention.Pass
	// Cut ends a group of events (Elasticsearch rolls the tenant's
	// stream over: a backing index goes whole, when its newest event
	// expires). Nil where each event goes at its own retention.
	Cut func(t testing.TB, tenant string)
	// Visible makes every write visible to reads.
	Visible func(t testing.TB)
	// DeleteBehind deletes a stored event behind the service.
	DeleteBehind func(t testing.TB, tenant, id string)
	// DuringPass makes fn run inside the next Retain, after the pass read
	// what it deletes of the events stored with the one at time at, and
	// before it deletes them. Nil where a pass's read of the holds and
	// its deletion are one transaction (SQLite: a hold's write waits for
	// it or went before it).
	DuringPass func(fn func(), at time.Time)
}

// RunLegalHolds is the fast-forwarded scenario of issue 55: a Starter
// tenant (30 days) with an event a day for 120 days, and holds of every
// kind: a time range, a query over all time, one released before the
// passes, one whose release is undone once and asked again, and one
// placed while a pass runs (before the pass, where it cannot be placed
// during one). Ten passes, each three days after the one before: after
// each, an event within retention or kept by a hold in force is stored,
// and every other one whose group went is gone (the expected sets are
// computed here from the events' times and actions, not by a store's
// filter); the holds' own records stay while they hold, and log verify
// passes. Then a pass record that ignored the holds, and a held event
// deleted behind the service, are named.
func RunLegalHolds(t *testing.T, newBackend func(t *testing.T, clock func() time.Time) HoldBackend) {
	ctx := context.Background()
	day := 24 * time.Hour
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := start
	b := newBackend(t, func() time.Time { return clock })
	s := b.Store
	g := gen.New(gen.Config{Seed: 55, Tenants: 1, WithIDs: true}, 200)
	tn := &g.Tenants()[0]
	if err := retention.ChangePlan(ctx, s, s, tn.ID, audit.PlanStarter, audit.PlanEnterprise, start); err != nil {
		t.Fatal(err)
	}
	if b.Cut != nil { // the plan change record in an index of its own
		b.Cut(t, tn.ID)
	}
	write := func(evs ...audit.Event) {
		t.Helper()
		Write(t, s, evs)
	}
	// Ten-day groups (a backing index each where Cut is set); newest is
	// each event's group's newest time.
	var events []audit.Event
	newest := map[string]time.Time{}
	for g0 := 120; g0 >= 1; g0 -= 10 {
		var group []audit.Event
		for i := g0; i > g0-10; i-- {
			group = append(group, g.NextFor(tn, start.Add(-time.Duration(i)*day)))
		}
		for _, e := range group {
			newest[e.ID] = group[len(group)-1].Timestamp.Time
		}
		write(group...)
		events = append(events, group...)
		if b.Cut != nil && g0 > 10 {
			b.Cut(t, tn.ID)
		}
	}
	counsel := audit.Principal{UserID: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", Email: "counsel@acme.example", Role: hold.Role, TenantID: tn.ID}
	span := func(from, to time.Duration) hold.Scope {
		f, t := audit.NewTimestamp(start.Add(-from)), audit.NewTimestamp(start.Add(-to))
		return hold.Scope{From: &f, To: &t}
	}
	step := func(h hold.Hold, rec audit.Event, err error) hold.Hold {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		write(rec)
		return h
	}
	place := func(matter string, scope hold.Scope, at time.Time) hold.Hold {
		return step(hold.Place(counsel, tn.ID, hold.Request{Matter: matter, Reason: "r", Scope: scope}, at))
	}
	rangeHold := place("range", span(100*day, 90*day), start.Add(-3*day))
	queryHold := place("deletions", hold.Scope{Q: "action:delete"}, start.Add(-3*day))
	gone := step(hold.AskRelease(counsel, place("released", span(80*day, 70*day), start.Add(-3*day)), start.Add(-2*day), time.Hour))
	waiting := step(hold.AskRelease(counsel, place("waiting", span(60*day, 55*day), start.Add(-3*day)), start.Add(-day), hold.DefaultGrace))
	if b.Cut != nil {
		b.Cut(t, tn.ID)
	}
	var late hold.Hold
	placeLate := func() { late = place("late", span(26*day, 22*day), clock) }
	// waitingUntil is when the waiting hold stops holding: its release is
	// undone at the first pass and asked again at the third.
	var waitingUntil time.Time
	keeps := func(e *audit.Event, now time.Time) bool {
		ts := e.Timestamp.Time
		in := func(from, to time.Duration) bool { return !ts.Before(start.Add(-from)) && ts.Before(start.Add(-to)) }
		return in(100*day, 90*day) || e.Action == audit.ActionDelete || in(26*day, 22*day) ||
			(waitingUntil.IsZero() || now.Before(waitingUntil)) && in(60*day, 55*day)
	}
	sealer, keys := NewSealer(t, s, 0)
	verify := func(when string) seal.Report {
		t.Helper()
		b.Visible(t)
		SealAll(t, sealer)
		rep, err := seal.Verify(ctx, s, s, tn.ID, keys)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		return rep
	}
	SealAll(t, sealer) // every event in a leaf before any goes
	var held int64
	for run := 1; run <= 10; run++ {
		clock = start.Add(time.Duration(run) * 3 * day)
		switch {
		case run == 1:
			waiting = step(hold.UndoRelease(counsel, waiting, clock))
		case run == 2 && b.DuringPass == nil:
			placeLate()
		case run == 3:
			waiting = step(hold.AskRelease(counsel, waiting, clock, hold.DefaultGrace))
			waitingUntil = waiting.Release.EffectiveAt.Time
		case run == 4 && b.DuringPass != nil:
			b.DuringPass(placeLate, start.Add(-24*day))
		}
		b.Visible(t)
		pass := b.Retain(t)
		b.Visible(t)
		held += pass.Held
		if len(pass.Kept) != 0 {
			t.Fatalf("run %d kept and named %+v", run, pass.Kept)
		}
		checkHeldStored(t, s, tn.ID, run, clock, events, newest, b.Cut == nil, keeps)
		records, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tn.ID, ResourceTypes: []string{hold.ResourceType}}, PageSize: 100, Sort: audit.DefaultSort})
		if err != nil {
			t.Fatal(err)
		}
		byHold, expired := map[string]int{}, map[string]int{}
		for _, e := range records.Events {
			byHold[e.Resource.ID]++
			if e.Timestamp.Before(audit.Cutoff(audit.PlanStarter, clock)) {
				expired[e.Resource.ID]++
			}
		}
		if byHold[rangeHold.ID] != 1 || byHold[queryHold.ID] != 1 || late.ID != "" && byHold[late.ID] != 1 {
			t.Fatalf("run %d: the records of holds in force: %v", run, byHold)
		}
		if run == 10 && (expired[gone.ID] != 0 || expired[waiting.ID] != 0) {
			t.Fatalf("run %d: the records of released holds, past retention, stayed: %v", run, expired)
		}
		if rep := verify(fmt.Sprintf("run %d", run)); len(rep.Findings) != 0 || rep.Expired == 0 {
			t.Fatalf("run %d: log verify: %+v", run, rep)
		}
	}
	if late.ID == "" || held == 0 {
		t.Fatalf("the late hold %q was not placed, or no pass counted a held event (%d)", late.ID, held)
	}
	// A pass that ignored the holds (as a service without holds would):
	// its record names no hold, and log verify names the holds it
	// ignored, not the released one.
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
	b.DeleteBehind(t, tn.ID, victim)
	named := false
	for _, f := range verify("a held event deleted behind the service").Findings {
		named = named || f.Kind == "missing" && f.EventID == victim
	}
	if !named {
		t.Fatalf("the held event %s deleted behind the service is not named missing", victim)
	}
}

// checkHeldStored checks, after a pass at now, that each event within
// retention or kept by a hold is stored, and that each other one is gone
// where its store deletes it: at its own retention (perEvent), or with
// its group, once the group's newest event expired.
func checkHeldStored(t *testing.T, s HoldStore, tenant string, run int, now time.Time, events []audit.Event, newest map[string]time.Time, perEvent bool, keeps func(*audit.Event, time.Time) bool) {
	t.Helper()
	cutoff := audit.Cutoff(audit.PlanStarter, now)
	for i := range events {
		e := &events[i]
		mustKeep := !e.Timestamp.Before(cutoff) || keeps(e, now)
		mustGo := !mustKeep && (perEvent || newest[e.ID].Before(cutoff))
		_, err := s.GetEvent(context.Background(), tenant, e.ID)
		if err != nil && audit.ErrorCode(err) != audit.ENOTFOUND {
			t.Fatal(err)
		}
		if stored := err == nil; stored && mustGo || !stored && mustKeep {
			t.Fatalf("run %d (now %s, cut-off %s): %s of %s (%s) stored %v, want %v",
				run, now.Format(time.DateOnly), cutoff.Format(time.DateOnly), e.ID, e.Timestamp.Format(time.DateOnly), e.Action, stored, mustKeep)
		}
	}
}
