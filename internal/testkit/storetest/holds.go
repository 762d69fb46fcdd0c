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
	sc := &holdScenario{t: t, start: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	sc.now = sc.start
	sc.b = newBackend(t, func() time.Time { return sc.now })
	sc.load()
	sc.placeHolds()
	sc.sealer, sc.keys = NewSealer(t, sc.b.Store, 0)
	SealAll(t, sc.sealer) // every event in a leaf before any goes
	var held int64
	for run := 1; run <= 10; run++ {
		held += sc.pass(run)
	}
	if sc.late.ID == "" || held == 0 {
		t.Fatalf("the late hold %q was not placed, or no pass counted a held event (%d)", sc.late.ID, held)
	}
	sc.forgedAndBehind()
}

const holdDay = 24 * time.Hour

// holdScenario is RunLegalHolds's state: the store, its clock, the
// tenant's events (each with its group's newest time) and the holds.
type holdScenario struct {
	t          *testing.T
	b          HoldBackend
	start, now time.Time
	tenant     string
	events     []audit.Event
	newest     map[string]time.Time
	counsel    audit.Principal
	// waitingUntil is when the waiting hold stops holding: its release is
	// undone at the first pass and asked again at the third.
	waitingUntil                        time.Time
	rangeHold, queryHold, gone, waiting hold.Hold
	late                                hold.Hold
	sealer                              *seal.Sealer
	keys                                vlog.Keys
}

// load puts the tenant on Starter and writes an event a day for 120
// days, in ten-day groups (a backing index each where Cut is set).
func (sc *holdScenario) load() {
	ctx, s := context.Background(), sc.b.Store
	g := gen.New(gen.Config{Seed: 55, Tenants: 1, WithIDs: true}, 200)
	tn := &g.Tenants()[0]
	sc.tenant, sc.newest = tn.ID, map[string]time.Time{}
	if err := retention.ChangePlan(ctx, s, s, tn.ID, audit.PlanStarter, audit.PlanEnterprise, sc.start); err != nil {
		sc.t.Fatal(err)
	}
	sc.cut() // the plan change record in an index of its own
	for g0 := 120; g0 >= 1; g0 -= 10 {
		var group []audit.Event
		for i := g0; i > g0-10; i-- {
			group = append(group, g.NextFor(tn, sc.start.Add(-time.Duration(i)*holdDay)))
		}
		for _, e := range group {
			sc.newest[e.ID] = group[len(group)-1].Timestamp.Time
		}
		Write(sc.t, s, group)
		sc.events = append(sc.events, group...)
		if g0 > 10 {
			sc.cut()
		}
	}
	sc.counsel = audit.Principal{UserID: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", Email: "counsel@acme.example", Role: hold.Role, TenantID: tn.ID}
}

func (sc *holdScenario) cut() {
	if sc.b.Cut != nil {
		sc.b.Cut(sc.t, sc.tenant)
	}
}

// step writes a hold's record and returns the hold.
func (sc *holdScenario) step(h hold.Hold, rec audit.Event, err error) hold.Hold {
	sc.t.Helper()
	if err != nil {
		sc.t.Fatal(err)
	}
	Write(sc.t, sc.b.Store, []audit.Event{rec})
	return h
}

func (sc *holdScenario) place(matter string, scope hold.Scope, at time.Time) hold.Hold {
	return sc.step(hold.Place(sc.counsel, sc.tenant, hold.Request{Matter: matter, Reason: "r", Scope: scope}, at))
}

// span is the scope of the days from to to before the start.
func (sc *holdScenario) span(from, to time.Duration) hold.Scope {
	f, t := audit.NewTimestamp(sc.start.Add(-from)), audit.NewTimestamp(sc.start.Add(-to))
	return hold.Scope{From: &f, To: &t}
}

// placeHolds places a time range, a query over all time, one released
// before the passes and one whose release waits, three days before the
// start.
func (sc *holdScenario) placeHolds() {
	at := sc.start.Add(-3 * holdDay)
	sc.rangeHold = sc.place("range", sc.span(100*holdDay, 90*holdDay), at)
	sc.queryHold = sc.place("deletions", hold.Scope{Q: "action:delete"}, at)
	sc.gone = sc.step(hold.AskRelease(sc.counsel, sc.place("released", sc.span(80*holdDay, 70*holdDay), at), sc.start.Add(-2*holdDay), time.Hour))
	sc.waiting = sc.step(hold.AskRelease(sc.counsel, sc.place("waiting", sc.span(60*holdDay, 55*holdDay), at), sc.start.Add(-holdDay), hold.DefaultGrace))
	sc.cut()
}

// keeps says whether a hold in force at now keeps e (computed from the
// event's time and action, not by a store's filter).
func (sc *holdScenario) keeps(e *audit.Event, now time.Time) bool {
	ts := e.Timestamp.Time
	in := func(from, to time.Duration) bool {
		return !ts.Before(sc.start.Add(-from)) && ts.Before(sc.start.Add(-to))
	}
	return in(100*holdDay, 90*holdDay) || e.Action == audit.ActionDelete || in(26*holdDay, 22*holdDay) ||
		(sc.waitingUntil.IsZero() || now.Before(sc.waitingUntil)) && in(60*holdDay, 55*holdDay)
}

// pass runs the run-th pass, three days after the one before, with the
// holds' steps of that run, checks what is stored, and returns the
// events the pass counted held.
func (sc *holdScenario) pass(run int) int64 {
	t, s := sc.t, sc.b.Store
	sc.now = sc.start.Add(time.Duration(run) * 3 * holdDay)
	placeLate := func() { sc.late = sc.place("late", sc.span(26*holdDay, 22*holdDay), sc.now) }
	switch {
	case run == 1:
		sc.waiting = sc.step(hold.UndoRelease(sc.counsel, sc.waiting, sc.now))
	case run == 2 && sc.b.DuringPass == nil:
		placeLate()
	case run == 3:
		sc.waiting = sc.step(hold.AskRelease(sc.counsel, sc.waiting, sc.now, hold.DefaultGrace))
		sc.waitingUntil = sc.waiting.Release.EffectiveAt.Time
	case run == 4 && sc.b.DuringPass != nil:
		sc.b.DuringPass(placeLate, sc.start.Add(-24*holdDay))
	}
	sc.b.Visible(t)
	pass := sc.b.Retain(t)
	sc.b.Visible(t)
	if len(pass.Kept) != 0 {
		t.Fatalf("run %d kept and named %+v", run, pass.Kept)
	}
	checkHeldStored(t, s, sc.tenant, run, sc.now, sc.events, sc.newest, sc.b.Cut == nil, sc.keeps)
	sc.checkHoldRecords(run)
	if rep := sc.verify(fmt.Sprintf("run %d", run)); len(rep.Findings) != 0 || rep.Expired == 0 {
		t.Fatalf("run %d: log verify: %+v", run, rep)
	}
	return pass.Held
}

// checkHoldRecords checks that the records of the holds in force stay,
// and that those of released holds go with their retention.
func (sc *holdScenario) checkHoldRecords(run int) {
	records, err := sc.b.Store.SearchEvents(context.Background(), audit.Query{Filter: audit.Filter{TenantID: sc.tenant, ResourceTypes: []string{hold.ResourceType}}, PageSize: 100, Sort: audit.DefaultSort})
	if err != nil {
		sc.t.Fatal(err)
	}
	byHold, expired := map[string]int{}, map[string]int{}
	for _, e := range records.Events {
		byHold[e.Resource.ID]++
		if e.Timestamp.Before(audit.Cutoff(audit.PlanStarter, sc.now)) {
			expired[e.Resource.ID]++
		}
	}
	if byHold[sc.rangeHold.ID] != 1 || byHold[sc.queryHold.ID] != 1 || sc.late.ID != "" && byHold[sc.late.ID] != 1 {
		sc.t.Fatalf("run %d: the records of holds in force: %v", run, byHold)
	}
	if run == 10 && (expired[sc.gone.ID] != 0 || expired[sc.waiting.ID] != 0) {
		sc.t.Fatalf("run %d: the records of released holds, past retention, stayed: %v", run, expired)
	}
}

func (sc *holdScenario) verify(when string) seal.Report {
	sc.t.Helper()
	sc.b.Visible(sc.t)
	SealAll(sc.t, sc.sealer)
	rep, err := seal.Verify(context.Background(), sc.b.Store, sc.b.Store, sc.tenant, sc.keys)
	if err != nil {
		sc.t.Fatalf("%s: %v", when, err)
	}
	return rep
}

// forgedAndBehind: a pass that ignored the holds (as a service without
// holds would) writes a record naming no hold, and log verify names the
// holds it ignored, not the released one; a held event deleted behind
// the service is missing, not expired.
func (sc *holdScenario) forgedAndBehind() {
	t := sc.t
	forged := retention.Deletion{TenantID: sc.tenant, Plan: audit.PlanStarter, Before: audit.Cutoff(audit.PlanStarter, sc.now)}
	Write(t, sc.b.Store, forged.Records(sc.now))
	rep := sc.verify("a pass that ignored the holds")
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != "unauthorized" || !strings.Contains(rep.Findings[0].Detail, sc.rangeHold.ID) ||
		!strings.Contains(rep.Findings[0].Detail, sc.queryHold.ID) || strings.Contains(rep.Findings[0].Detail, sc.gone.ID) {
		t.Fatalf("a pass that ignored the holds: %+v", rep.Findings)
	}
	var victim string
	for i := range sc.events {
		if sc.events[i].Action == audit.ActionDelete && sc.events[i].Timestamp.Before(audit.Cutoff(audit.PlanStarter, sc.now)) {
			victim = sc.events[i].ID
			break
		}
	}
	sc.b.DeleteBehind(t, sc.tenant, victim)
	named := false
	for _, f := range sc.verify("a held event deleted behind the service").Findings {
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
