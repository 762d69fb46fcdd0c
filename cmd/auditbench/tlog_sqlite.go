package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/sqlite"
)

// benchLogSQLite: HTTP ingest with a sealer running against none,
// sealing against the store's write rate, acceptance to checkpoint, and
// proofs and storage at 1M events, on the embedded store.
func benchLogSQLite(ctx context.Context, e *env) ([]result, error) {
	dir, err := os.MkdirTemp("", "auditbench-tlog")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	n := max(10000, int(100000*e.scale))
	g := gen.New(gen.Config{Seed: 21, Tenants: 10, Skew: 1.1}, 4*n*(e.runs+1))
	var on, off, b2b, sealed, written, p50, p99 []float64
	for run := 0; run <= e.runs; run++ {
		rates := map[sealerMode]float64{}
		// The three runs rotate their order run by run.
		modes := []sealerMode{sealerAsShipped, noSealer, sealerBackToBack}
		for i := range modes {
			mode := modes[(i+run)%len(modes)]
			r, err := httpIngestRunWith(ctx, filepath.Join(dir, fmt.Sprintf("ingest-%d-%d.db", run, mode)), g, n, sqliteBatch, mode)
			if err != nil {
				return nil, err
			}
			rates[mode] = r
		}
		rOn, rOff := rates[sealerAsShipped], rates[noSealer]
		w, s, err := writeThenSeal(ctx, filepath.Join(dir, fmt.Sprintf("seal-%d.db", run)), g, n)
		if err != nil {
			return nil, err
		}
		lat, err := sqliteLatency(ctx, filepath.Join(dir, fmt.Sprintf("latency-%d.db", run)), e)
		if err != nil {
			return nil, err
		}
		log.Printf("  run %d: SQLite HTTP ingest %.0f ev/s sealing, %.0f not, %.0f sealing back to back; write %.0f ev/s, seal %.0f ev/s; acceptance → checkpoint p50 %.0f ms p99 %.0f ms",
			run, rOn, rOff, rates[sealerBackToBack], w, s, percentile(lat, 50), percentile(lat, 99))
		if run > 0 {
			on, off, written, sealed = append(on, rOn), append(off, rOff), append(written, w), append(sealed, s)
			b2b = append(b2b, rates[sealerBackToBack])
			p50, p99 = append(p50, percentile(lat, 50)), append(p99, percentile(lat, 99))
		}
	}
	out := []result{
		{Name: "SQLite HTTP ingest, sealing on vs off", Unit: "events/s", Samples: on, Ceiling: off, Target: "≥ 90% of sealing off", MinRatio: 0.9,
			Method: fmt.Sprintf("The SQLite ingest benchmark's HTTP run (%d events in JSON arrays of %d, 2 clients, a fresh database) with a sealer running on the same store as `serve` runs it "+
				"(rounds back to back while full batches of 5,000 are pending, a second apart otherwise), next to the same run without, "+
				"and a third with the sealer's rounds back to back while any event is pending (its linger at 1 ns, as the sealer ran until 2026-11-30); the order of the three rotates run by run. One warm-up run of each, then %d of each.", n, sqliteBatch, e.runs),
			Notes: backToBackNote(b2b, off)},
		{Name: "SQLite sealing vs the store's write rate", Unit: "events/s", Samples: sealed, Ceiling: written, Target: "≥ 1.5× the write rate", MinRatio: 1.5,
			Method: fmt.Sprintf("%d events of 10 tenants written with `Store.WriteEvents` in batches of %d on a fresh database (the ceiling: the write rate), then sealed from the first to the last "+
				"by `seal.Sealer.Round` with rounds of 5,000 (leaf hashes, tree hashes, one signed checkpoint per tenant and round, one transaction each). A ratio above 1 means sealing keeps up with the writes.", n, sqliteBatch), Notes: entryFormatNote[1:]},
	}
	out = append(out, latencyRows("SQLite", p50, p99, e)...)
	proofs, err := sqliteProofs(ctx, e, filepath.Join(dir, "proofs.db"))
	if err != nil {
		return nil, err
	}
	return append(out, proofs...), nil
}

// writeThenSeal writes n events to a new database and then seals them:
// the write rate and the sealing rate.
func writeThenSeal(ctx context.Context, path string, g *gen.Generator, n int) (float64, float64, error) {
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: path})
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	var batches [][]audit.Event
	for i := 0; i < n; i += sqliteBatch {
		b := make([]audit.Event, 0, sqliteBatch)
		for j := i; j < min(i+sqliteBatch, n); j++ {
			ev := g.Next()
			ev.ID = audit.DeriveID(ev.Timestamp, audit.CanonicalKey(ev))
			b = append(b, ev)
		}
		batches = append(batches, b)
	}
	t0 := time.Now()
	for _, b := range batches {
		if _, err := s.WriteEvents(ctx, b); err != nil {
			return 0, 0, err
		}
	}
	wrote := time.Since(t0)
	k, took, err := sealAll(ctx, s, 5000)
	if err != nil || k != n {
		return 0, 0, fmt.Errorf("sealed %d of %d: %v", k, n, err)
	}
	return float64(n) / wrote.Seconds(), float64(n) / took.Seconds(), nil
}

// sqliteLatency measures acceptance → checkpoint on a new database.
func sqliteLatency(ctx context.Context, path string, e *env) ([]float64, error) {
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: path})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	batches := max(20, int(100*e.scale))
	return latencyRun(ctx, s, s, gen.New(gen.Config{Seed: 5, Tenants: 1, WithIDs: true}, batches*100), batches, 100, 100*time.Millisecond)
}

// latencyRows reports acceptance → checkpoint, p50 and p99 per run.
func latencyRows(store string, p50, p99 []float64, e *env) []result {
	method := fmt.Sprintf("On %s, with a sealer running as `serve` runs it (back to back while full batches are pending, a second apart otherwise): one tenant's events written in batches of 100 "+
		"every 100 ms (%d batches a run), each batch's acceptance being the return of its acknowledged write; a watcher reads the tenant's log state every 10 ms, and a batch's latency is "+
		"from its acceptance to the first state whose signed checkpoint covers it. One figure per run: the percentile over its batches. One warm-up run, then %d.", store, max(20, int(100*e.scale)), e.runs)
	return []result{
		{Name: "Acceptance → signed checkpoint p50 (" + store + ")", Unit: "ms", Samples: p50, Target: "(reported)", Method: method},
		{Name: "Acceptance → signed checkpoint p99 (" + store + ")", Unit: "ms", Samples: p99, Target: "≤ 10000 ms", Max: 10000, Method: method},
	}
}

// sqliteProofs loads 1M events of one tenant, seals them, and measures
// proofs and the tree's storage.
func sqliteProofs(ctx context.Context, e *env, path string) ([]result, error) {
	qn := max(20000, int(1000000*e.scale))
	qg := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, qn)
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: path})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := loadEvents(ctx, s, qg, qn, 1); err != nil {
		return nil, err
	}
	k, took, err := sealAll(ctx, s, 5000)
	if err != nil || k != qn {
		return nil, fmt.Errorf("sealed %d of %d: %v", k, qn, err)
	}
	log.Printf("  sealed %d SQLite events in %s", qn, took.Round(time.Second))
	var incl, cons []float64
	for run := 0; run <= e.runs; run++ {
		in, co, err := proofTimes(ctx, s, qg.Tenants()[0].ID, 200)
		if err != nil {
			return nil, err
		}
		if run > 0 {
			incl, cons = append(incl, percentile(in, 99)), append(cons, percentile(co, 99))
		}
	}
	tree, events, err := s.LogFootprint(ctx)
	if err != nil {
		return nil, err
	}
	parts, err := s.Footprint(ctx)
	if err != nil {
		return nil, err
	}
	rows := proofRows("SQLite", qn, k, took, incl, cons, tree, events, "the tables `tlog_hash_blocks`, `tlog_leaves` and `tlog_state` with their indexes", "the `events` table (bodies), its indexes, the full-text index and the rollups", e)
	return append(rows, footprintPartRows(qn, parts)...), nil
}

// footprintPartRows report where the bytes of the SQLite file go, per
// event: the parts issue 58 cuts.
func footprintPartRows(qn int, parts []sqlite.FootprintPart) []result {
	method := fmt.Sprintf("On disk after the %d events of one tenant were stored and sealed (the proof rows' store), from SQLite's dbstat (pages, free space within them included), "+
		"by part: the `events` table; its indexes; the FTS5 tables; the rollup tables; the tree's `tlog_hash_blocks`; its `tlog_leaves` with their index; per event. One measure, after the load.", qn)
	var out []result
	for _, p := range parts {
		out = append(out, result{Name: "SQLite bytes per event: " + p.Name, Unit: "bytes", Samples: []float64{float64(p.Bytes) / float64(qn)}, Target: "(reported)", Method: method})
	}
	return out
}

// proofRows reports proofs at qn events (k of them sealed here, in took)
// and the tree's storage.
func proofRows(store string, qn, k int, took time.Duration, incl, cons []float64, tree, events int64, treeWhat, eventsWhat string, e *env) []result {
	sealed := fmt.Sprintf("sealed from the first to the last in %s (%.0f events/s)", took.Round(time.Second), float64(qn)/took.Seconds())
	if k < qn {
		sealed = fmt.Sprintf("sealed, %d of them by the export benchmark's `serve` (sealing on, as by default) before this one", qn-k)
	}
	method := fmt.Sprintf("%d events of one tenant on %s, %s. Per run, 200 random leaves: the event id of each is looked up as the API does, "+
		"then `seal.ProveInclusion` against the latest tree (the store's own calls, no HTTP); and 200 consistency proofs from a random size to the latest. One figure per run: the p99. One warm-up run, then %d.",
		qn, store, sealed, e.runs)
	ratio := 100 * float64(tree) / float64(max(events, 1))
	return append(footprintRows(store, qn, tree, events, treeWhat, eventsWhat), []result{
		{Name: fmt.Sprintf("Inclusion proof p99 at %d events (%s)", qn, store), Unit: "ms", Samples: incl, Target: "≤ 20 ms", Max: 20, Method: method},
		{Name: fmt.Sprintf("Consistency proof p99 at %d events (%s)", qn, store), Unit: "ms", Samples: cons, Target: "(reported)", Method: method},
		{Name: fmt.Sprintf("Tree storage / events storage (%s)", store), Unit: "%", Samples: []float64{ratio}, Target: "≤ 5%", Max: 5,
			Method: fmt.Sprintf("On disk after sealing the %d events above: %s (%d bytes) against %s (%d bytes).", qn, treeWhat, tree, eventsWhat, events)},
	}...)
}

// backToBackNote is the ingest rate beside a sealer whose rounds ran back
// to back, from the same runs as the row's.
func backToBackNote(b2b, off []float64) string {
	if len(b2b) == 0 {
		return ""
	}
	return fmt.Sprintf("With the sealer's rounds back to back (no linger), in the same runs: %.0f (%.0f–%.0f) events/s, %.0f%% of sealing off. The linger (seal.Config.Linger, the idle pause by default) makes the rounds fewer and larger: each round commits, on the connection ingest writes with, the state, signed checkpoint and tail of the tree of every tenant it touched. In one-off side by side runs of five, lingers of a quarter and of half a second gave 86%% and 83%% of sealing off: no length gains beyond the runs' spread, so the default keeps light ingest at one round a second, as the sealer had it.",
		median(b2b), slices.Min(b2b), slices.Max(b2b), 100*median(b2b)/median(off))
}
