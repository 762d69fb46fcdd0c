package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/witnessrun"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/sqlite"
	"github.com/auditlog/auditlog/tlogwitness"
)

// benchLogCosign (issue 41): the time from an event's acceptance to a
// checkpoint that covers it and that a real, local litewitness cosigned,
// next to the time to the signed checkpoint in the same runs, on SQLite
// with the sealer and the cosigner running as serve runs them.
func benchLogCosign(ctx context.Context, e *env) ([]result, error) {
	bin := os.Getenv("AUDITLOG_TEST_LITEWITNESS")
	if bin == "" {
		return nil, fmt.Errorf("AUDITLOG_TEST_LITEWITNESS is not set: run make bench (scripts/services.sh builds litewitness)")
	}
	dir, err := os.MkdirTemp("", "auditbench-cosign")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var cos50, cos99, sig50, sig99 []float64
	refused99 := [3][]float64{} // by refused tenants beside: 1 and 2 (0 is cos99)
	for run := 0; run <= e.runs; run++ {
		signed, cosigned, err := cosignRun(ctx, e, bin, filepath.Join(dir, fmt.Sprint(run)), 0)
		if err != nil {
			return nil, err
		}
		log.Printf("  run %d: acceptance → signed p50 %.0f p99 %.0f ms, → cosigned p50 %.0f p99 %.0f ms", run,
			percentile(signed, 50), percentile(signed, 99), percentile(cosigned, 50), percentile(cosigned, 99))
		if run > 0 {
			cos50, cos99 = append(cos50, percentile(cosigned, 50)), append(cos99, percentile(cosigned, 99))
			sig50, sig99 = append(sig50, percentile(signed, 50)), append(sig99, percentile(signed, 99))
		}
		for refused := 1; refused <= 2; refused++ {
			_, cosigned, err := cosignRun(ctx, e, bin, filepath.Join(dir, fmt.Sprintf("%d-refused-%d", run, refused)), refused)
			if err != nil {
				return nil, err
			}
			log.Printf("  run %d: with %d refused tenants beside, acceptance → cosigned p99 %.0f ms", run, refused, percentile(cosigned, 99))
			if run > 0 {
				refused99[refused] = append(refused99[refused], percentile(cosigned, 99))
			}
		}
	}
	method := fmt.Sprintf("On SQLite, with the sealer and the cosigner running as `serve` runs them (sealing back to back while full batches are pending, a second apart otherwise; "+
		"a cosigning pass after each round's tenants, at most every second) and one local litewitness v0.6.1 (a real C2SP tlog-witness, its key in an ssh-agent): "+
		"one tenant's events written in batches of 100 every 100 ms (%d batches a run), each batch's acceptance being the return of its acknowledged write; "+
		"a watcher reads every 10 ms the tenant's log state and its latest cosigned checkpoint, and a batch's latency is from its acceptance to the first signed "+
		"(ceiling column), then the first cosigned, checkpoint that covers it, in the same run. One figure per run: the percentile over its batches. One warm-up run, then %d.",
		max(20, int(100*e.scale)), e.runs)
	refusedMethod := method + " Beside the measured tenant, 1 or 2 other tenants write 10 events with each batch, and the witness does not know their logs: " +
		"it refuses every checkpoint of theirs (404), which the cosigner backs off from per witness and tenant (issue 53; it was per witness, and one refused tenant " +
		"made every other wait: p99 6.6 s with one, over 120 s with two). Ceiling column: the measured tenant's p99 with none beside, in the same run."
	return []result{
		{Name: "Acceptance → cosigned checkpoint p50 (SQLite, one litewitness)", Unit: "ms", Samples: cos50, Ceiling: sig50, Target: "(reported)", Method: method},
		{Name: "Acceptance → cosigned checkpoint p99 (SQLite, one litewitness)", Unit: "ms", Samples: cos99, Ceiling: sig99, Target: "≤ 5000 ms", Max: 5000, Method: method},
		{Name: "Acceptance → cosigned checkpoint p99, one refused tenant beside", Unit: "ms", Samples: refused99[1], Ceiling: cos99, Target: "≤ 5000 ms", Max: 5000, Method: refusedMethod},
		{Name: "Acceptance → cosigned checkpoint p99, two refused tenants beside", Unit: "ms", Samples: refused99[2], Ceiling: cos99, Target: "≤ 5000 ms", Max: 5000, Method: refusedMethod},
	}, nil
}

// cosignRun is one run in a new database and a new witness: each batch's
// latency to its signed and to its cosigned checkpoint, in ms; refused
// other tenants, whose logs the witness does not know, write beside it.
func cosignRun(ctx context.Context, e *env, bin, dir string, refused int) (signed, cosigned []float64, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: benchAccept, Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	batches := max(20, int(100*e.scale))
	g := gen.New(gen.Config{Seed: 9, Tenants: 1 + refused, WithIDs: true}, batches*(100+10*refused))
	tenants := g.Tenants()
	tenant := tenants[0].ID
	stop, err := runCosigned(ctx, s, bin, dir, tenant)
	if err != nil {
		return nil, nil, err
	}
	defer stop()
	var mu sync.Mutex
	acked := make([]time.Time, batches)
	atSigned, atCosigned := make([]time.Time, batches), make([]time.Time, batches)
	watch := make(chan error, 1)
	go func() { watch <- watchCovered(ctx, s, tenant, batches, 100, atSigned, atCosigned) }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < batches; i++ {
		b := make([]audit.Event, 100, 100+10*refused)
		for j := range b {
			b[j] = g.NextFor(&tenants[0], time.Now())
		}
		for r := 1; r <= refused; r++ {
			for range 10 {
				b = append(b, g.NextFor(&tenants[r], time.Now()))
			}
		}
		if _, err := s.WriteEvents(ctx, b); err != nil {
			return nil, nil, err
		}
		mu.Lock()
		acked[i] = time.Now()
		mu.Unlock()
		<-tick.C
	}
	if err := <-watch; err != nil {
		return nil, nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range acked {
		signed = append(signed, max(0, ms(atSigned[i].Sub(acked[i]))))
		cosigned = append(cosigned, max(0, ms(atCosigned[i].Sub(acked[i]))))
	}
	return signed, cosigned, nil
}

// runCosigned starts a litewitness that knows the tenant's log, and the
// sealer and the cosigner on s; stop ends them.
func runCosigned(ctx context.Context, s *sqlite.Store, bin, dir, tenant string) (func(), error) {
	w, err := witnessrun.Start(bin, dir, "bench.example/witness")
	if err != nil {
		return nil, err
	}
	pub, priv, _ := ed25519.GenerateKey(nil)
	origin := vlog.Origin("auditlog.bench", tenant)
	if err := w.AddLog(origin, vlog.VerifierKey(origin, pub)); err != nil {
		w.Close()
		return nil, err
	}
	key, err := vlog.ParseWitnessKey(w.Key)
	if err != nil {
		w.Close()
		return nil, err
	}
	quiet := slog.New(slog.DiscardHandler)
	c := seal.NewCosigner(seal.CosignConfig{Witnesses: []tlogwitness.Witness{{URL: w.URL, Key: key}}},
		seal.CosignDeps{Log: s, Cosigned: s, Tenants: s, Logger: quiet})
	sealer := seal.New(seal.Config{Origin: "auditlog.bench"}, seal.Deps{Accept: benchAccept, Store: s, Key: priv, Logger: quiet, OnSealed: c.Sealed})
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); sealer.Run(cctx) }()
	go func() { defer wg.Done(); c.Run(cctx) }()
	return func() { cancel(); wg.Wait(); w.Close() }, nil
}

// watchCovered reads every 10 ms the tenant's log state and cosigned
// checkpoint, and notes when each batch (of size events) is first in a
// signed and in a cosigned checkpoint.
func watchCovered(ctx context.Context, s *sqlite.Store, tenant string, batches, size int, atSigned, atCosigned []time.Time) error {
	deadline := time.Now().Add(3 * time.Minute)
	nextS, nextC := 0, 0
	for nextC < batches {
		if time.Now().After(deadline) {
			return fmt.Errorf("cosigned %d of %d batches within 3 minutes", nextC, batches)
		}
		ls, err := s.LogState(ctx, tenant)
		if err != nil {
			return err
		}
		cos, err := s.CosignedCheckpoint(ctx, tenant)
		if err != nil {
			return err
		}
		now := time.Now()
		for nextS < batches && ls.Size >= int64((nextS+1)*size) {
			atSigned[nextS], nextS = now, nextS+1
		}
		for nextC < batches && cos.Size >= int64((nextC+1)*size) {
			atCosigned[nextC], nextC = now, nextC+1
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}
