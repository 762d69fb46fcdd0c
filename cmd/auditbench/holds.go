package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/sqlite"
)

// The legal holds benchmark (issue 55): the retention pass of each store
// over a Starter tenant of 1,000,000 events spread over 60 days (half of
// them past the 30-day retention), with 100 legal holds, against the same
// pass with none, alternating runs. Half the holds are time ranges of an
// hour, half "this user in these three days" (a query and a range), all
// within the expired half.

// holdsNow is the benchmark's clock: 60 days after the first event.
var holdsNow = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)

// holdsData is the tenant's events in time order, and the records of 100
// holds over them.
func holdsData(n int) (tenant string, events []audit.Event, records []audit.Event, err error) {
	g := gen.New(gen.Config{Seed: 55, Tenants: 1, WithIDs: true}, n)
	tn := &g.Tenants()[0]
	start := holdsNow.Add(-60 * 24 * time.Hour)
	step := 60 * 24 * time.Hour / time.Duration(n)
	for i := range n {
		events = append(events, g.NextFor(tn, start.Add(time.Duration(i)*step)))
	}
	counsel := audit.Principal{UserID: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", Email: "counsel@bench.example", Role: hold.Role, TenantID: tn.ID}
	for i := range 100 {
		from := start.Add(time.Duration(i%50) * 14 * time.Hour) // within the expired 30 days
		r := hold.Request{Matter: fmt.Sprintf("matter %d", i), Reason: "benchmark"}
		if i%2 == 0 {
			to := audit.NewTimestamp(from.Add(time.Hour))
			f := audit.NewTimestamp(from)
			r.Scope = hold.Scope{From: &f, To: &to}
		} else {
			to := audit.NewTimestamp(from.Add(72 * time.Hour))
			f := audit.NewTimestamp(from)
			r.Scope = hold.Scope{From: &f, To: &to, Q: "actor:" + events[(i*7919)%len(events)].Actor.Email}
		}
		_, rec, err := hold.Place(counsel, tn.ID, r, holdsNow.Add(-time.Hour))
		if err != nil {
			return "", nil, nil, err
		}
		records = append(records, rec)
	}
	return tn.ID, events, records, nil
}

func benchHolds(ctx context.Context, e *env) ([]result, error) {
	n := max(20000, int(1_000_000*e.scale))
	tenant, events, records, err := holdsData(n)
	if err != nil {
		return nil, err
	}
	sq, err := benchHoldsSQLite(ctx, e, tenant, events, records)
	if err != nil {
		return nil, err
	}
	es, err := benchHoldsES(ctx, e, tenant, events, records)
	if err != nil {
		return nil, err
	}
	return []result{sq, es}, nil
}

// benchHoldsSQLite times the purge on copies of one database, with and
// without the holds' records.
func benchHoldsSQLite(ctx context.Context, e *env, tenant string, events, records []audit.Event) (result, error) {
	dir, err := os.MkdirTemp("", "auditbench-holds")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	clock := func() time.Time { return holdsNow }
	base, held := filepath.Join(dir, "base.db"), filepath.Join(dir, "held.db")
	for _, p := range []struct {
		path    string
		records []audit.Event
	}{{base, nil}, {held, records}} {
		s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: p.path, Now: clock})
		if err != nil {
			return result{}, err
		}
		err = retention.ChangePlan(ctx, s, s, tenant, audit.PlanStarter, audit.PlanEnterprise, holdsNow.Add(-61*24*time.Hour))
		for i := 0; err == nil && i < len(events); i += 5000 {
			_, err = s.WriteEvents(ctx, events[i:min(i+5000, len(events))])
		}
		if err == nil && len(p.records) > 0 {
			_, err = s.WriteEvents(ctx, p.records)
		}
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return result{}, err
		}
	}
	purge := func(src string, run int) (float64, retention.Pass, error) {
		path := filepath.Join(dir, fmt.Sprintf("run-%d.db", run))
		if err := copyFile(src, path); err != nil {
			return 0, retention.Pass{}, err
		}
		defer os.Remove(path)
		s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: path, Now: clock})
		if err != nil {
			return 0, retention.Pass{}, err
		}
		defer s.Close()
		t0 := time.Now()
		pass, err := s.Purge(ctx)
		return ms(time.Since(t0)), pass, err
	}
	var with, without []float64
	var kept int64
	for run := 0; run <= e.runs; run++ {
		a, pa, err := purge(held, 2*run)
		if err != nil {
			return result{}, err
		}
		b, pb, err := purge(base, 2*run+1)
		if err != nil {
			return result{}, err
		}
		log.Printf("  sqlite run %d: purge %.0f ms with 100 holds (%d deleted, %d held), %.0f ms without (%d deleted)", run, a, pa.Deleted, pa.Held, b, pb.Deleted)
		kept = pa.Held
		if run > 0 {
			with, without = append(with, a), append(without, b)
		}
	}
	return result{Name: "SQLite purge with 100 legal holds", Unit: "ms", Samples: with, Ceiling: without, MaxRatio: 2, Target: "≤ 2× the purge without holds",
		Method: fmt.Sprintf("A Starter tenant of %s events over 60 days (half past the 30-day retention), in one database copied for each run; the purge "+
			"(`sqlite.Store.Purge`) with the records of 100 holds (50 one-hour ranges, 50 \"this user in these three days\") keeping %s events, against "+
			"the purge of a copy without them, alternating. Ceiling: the purge without holds; the ratio is the cost of the holds.", thousands(int64(len(events))), thousands(kept))}, nil
}

// benchHoldsES times the lifecycle pass on a fresh stream per run whose
// events are in 12 backing indices of 5 days each, with and without the
// holds' records.
func benchHoldsES(ctx context.Context, e *env, tenant string, events, records []audit.Event) (result, error) {
	clock := func() time.Time { return holdsNow }
	pass := func(withHolds bool) (float64, elasticsearch.LifecycleReport, error) {
		s, err := benchStore(ctx, e, elasticsearch.Config{IndexPrefix: uniq("holds"), RequestTimeout: 2 * time.Minute},
			elasticsearch.StoreConfig{Accept: benchAccept, Now: clock, Log: true})
		if err != nil {
			return 0, elasticsearch.LifecycleReport{}, err
		}
		defer dropRun(ctx, s, tenant)
		if err := retention.ChangePlan(ctx, s, s, tenant, audit.PlanStarter, audit.PlanEnterprise, holdsNow.Add(-61*24*time.Hour)); err != nil {
			return 0, elasticsearch.LifecycleReport{}, err
		}
		stream := s.StreamName(audit.PlanStarter, tenant)
		chunk := (len(events) + 11) / 12
		for i := 0; i < len(events); i += chunk {
			part := events[i:min(i+chunk, len(events))]
			if withHolds && i+chunk >= len(events) {
				part = append(append([]audit.Event(nil), part...), records...)
			}
			if err := loadEvents(ctx, s, sliceGen(part), len(part), 4); err != nil {
				return 0, elasticsearch.LifecycleReport{}, err
			}
			if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+stream+"/_rollover", nil, nil); err != nil {
				return 0, elasticsearch.LifecycleReport{}, err
			}
		}
		t0 := time.Now()
		rep, err := s.RunLifecycle(ctx)
		return ms(time.Since(t0)), rep, err
	}
	var with, without []float64
	var kept int64
	for run := 0; run <= e.runs; run++ {
		a, ra, err := pass(true)
		if err != nil {
			return result{}, err
		}
		b, rb, err := pass(false)
		if err != nil {
			return result{}, err
		}
		log.Printf("  elasticsearch run %d: pass %.0f ms with 100 holds (%d indices deleted, %d held), %.0f ms without (%d deleted)", run, a, len(ra.Deleted), ra.Retention.Held, b, len(rb.Deleted))
		kept = ra.Retention.Held
		if run > 0 {
			with, without = append(with, a), append(without, b)
		}
	}
	return result{Name: "Elasticsearch lifecycle pass with 100 legal holds", Unit: "ms", Samples: with, Ceiling: without, MaxRatio: 2, Target: "≤ 2× the pass without holds",
		Method: fmt.Sprintf("The same tenant and holds on a fresh stream per run: its %s events loaded in 12 backing indices of 5 days each (the holds' records in the "+
			"last), then one lifecycle pass (`elasticsearch.Store.RunLifecycle`), which retires the expired indices: with the holds it reads them, finds what "+
			"each keeps in each index and copies those events (%s) into the tenant's held index first. Ceiling: the same pass on the same events without "+
			"holds, alternating. Loading is not timed.", thousands(int64(len(events))), thousands(kept))}, nil
}

// sliceGen replays events as loadEvents's generator would make them.
type replay struct {
	events []audit.Event
	i      int
}

func sliceGen(events []audit.Event) *replay { return &replay{events: events} }

func (r *replay) Next() audit.Event {
	e := r.events[r.i]
	r.i++
	return e
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// dropRun closes a run's streams (closeRun: the test cluster cannot
// delete a data stream) and deletes its held index: each run loads its own
// copy of the events.
func dropRun(ctx context.Context, s *elasticsearch.Store, tenant string) {
	closeRun(ctx, s)
	res, err := s.Client().Do(ctx, http.MethodDelete, "/"+s.HeldIndex(tenant), nil)
	if err != nil || res.Status != http.StatusOK && res.Status != http.StatusNotFound {
		log.Printf("  deleting the run's held index: %v", err)
	}
}
