package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/streaming/webhook"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// steadyLoad writes rate events/s of the rig's tenants, in batches every
// 100 ms, until ctx ends; each batch's ids and the time it was stored
// (accepted) go to accepted when set.
func steadyLoad(ctx context.Context, rig *streamRig, rate int, accepted func(ids []string, at time.Time)) error {
	g := gen.New(gen.Config{Seed: uint64(time.Now().UnixNano()), Tenants: 1, WithIDs: true}, 1<<30)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	per := max(1, rate/10)
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		batch := make([]audit.Event, per)
		ids := make([]string, per)
		for j := range batch {
			batch[j] = steadyEvent(g, rig.tenants, i)
			ids[j], i = batch[j].ID, i+1
		}
		if err := rig.write(ctx, batch); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if accepted != nil {
			accepted(ids, time.Now())
		}
	}
}

// background runs the sealer and a streamer replica as serve and
// `auditlog stream` run them (every second), until the returned stop.
func (r *streamRig) background(ctx context.Context) (stop func(), err error) {
	stopSealer, err := runSealer(ctx, r.store)
	if err != nil {
		return nil, err
	}
	bg, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.runner().Run(bg, time.Second) }()
	return func() { cancel(); <-done; stopSealer() }, nil
}

// streamLatency measures, run by run, the time from an event's
// acceptance (its write returned) to its arrival at the webhook, under a
// steady 500 events/s of 10 tenants for a minute (scaled), with the
// sealer and the streamer at their defaults (every second).
func streamLatency(ctx context.Context, e *env, rig *streamRig) ([]result, error) {
	const rate = 500
	d := time.Duration(max(15, int(60*e.scale))) * time.Second
	var p50, p95, p99 []float64
	for run := 0; run <= e.runs; run++ {
		streams, err := rig.streams(ctx, webhook.Kind, true)
		if err != nil {
			return nil, err
		}
		acc := map[string]time.Time{}
		rig.recv.mu.Lock()
		rig.recv.arrivals = map[string]time.Time{}
		rig.recv.mu.Unlock()
		stop, err := rig.background(ctx)
		if err != nil {
			return nil, err
		}
		lctx, cancel := context.WithTimeout(ctx, d)
		err = steadyLoad(lctx, rig, rate, func(ids []string, at time.Time) {
			for _, id := range ids {
				acc[id] = at
			}
		})
		cancel()
		if err != nil {
			stop()
			return nil, err
		}
		lat, err := waitArrivals(ctx, rig, acc)
		stop()
		if err != nil {
			return nil, err
		}
		_ = deleteStreams(ctx, rig, streams)
		a, b, c := percentile(lat, 50), percentile(lat, 95), percentile(lat, 99)
		log.Printf("  run %d: acceptance → webhook p50 %.0f ms, p95 %.0f ms, p99 %.0f ms (%d events)", run, a, b, c, len(lat))
		if run > 0 {
			p50, p95, p99 = append(p50, a), append(p95, b), append(p99, c)
		}
	}
	method := fmt.Sprintf("A steady %d events/s of 10 tenants (a batch every 100 ms, stored in Elasticsearch by the store's own write) for %s per run, "+
		"with the sealer (`seal.Sealer.Run`, a round every second, as serve runs it) and one streamer replica (`streaming.Runner.Run`, a pass every second, "+
		"batches of 500, as `auditlog stream` runs by default) in the same process, to one webhook stream per tenant on an in-process HTTPS server. "+
		"Latency: from the moment an event's write returned to the moment the webhook first received it, over every event of the run. "+
		"The floor is the two one-second cycles it crosses (sealing, then the stream's pass), plus Elasticsearch's refresh. "+
		"One warm-up, then %d runs.", rate, d, e.runs)
	return []result{
		{Name: "Stream latency, acceptance → webhook: p50", Unit: "ms", Samples: p50, Target: "reported", Method: method},
		{Name: "Stream latency, acceptance → webhook: p95", Unit: "ms", Samples: p95, Target: "≤ 10 s", Max: 10000, Method: method},
		{Name: "Stream latency, acceptance → webhook: p99", Unit: "ms", Samples: p99, Target: "≤ 60 s", Max: 60000, Method: method},
	}, nil
}

// waitArrivals waits until every accepted event arrived (at most two
// minutes) and returns each one's latency in milliseconds.
func waitArrivals(ctx context.Context, rig *streamRig, acc map[string]time.Time) ([]float64, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		missing := 0
		rig.recv.mu.Lock()
		for id := range acc {
			if _, ok := rig.recv.arrivals[id]; !ok {
				missing++
			}
		}
		rig.recv.mu.Unlock()
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d events did not arrive in two minutes", missing, len(acc))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	rig.recv.mu.Lock()
	defer rig.recv.mu.Unlock()
	out := make([]float64, 0, len(acc))
	for id, at := range acc {
		arr, ok := rig.recv.arrivals[id]
		if !ok {
			return nil, fmt.Errorf("event %s never arrived", id)
		}
		out = append(out, ms(arr.Sub(at)))
	}
	rig.recv.arrivals = nil
	return out, nil
}

func deleteStreams(ctx context.Context, rig *streamRig, streams []*stream.Stream) error {
	for _, s := range streams {
		if err := rig.store.DeleteStream(ctx, s.TenantID, s.ID); err != nil {
			return err
		}
	}
	return nil
}

// streamCatchUp takes the webhook down for ten minutes (scaled) under
// 2,000 events/s, brings it back, and measures the time until the streams
// delivered every event accepted before it came back.
func streamCatchUp(ctx context.Context, e *env, rig *streamRig) (result, error) {
	const rate = 2000
	outage := time.Duration(max(20, int(600*e.scale))) * time.Second
	streams, err := rig.streams(ctx, webhook.Kind, true)
	if err != nil {
		return result{}, err
	}
	defer func() { _ = deleteStreams(ctx, rig, streams) }()
	stop, err := rig.background(ctx)
	if err != nil {
		return result{}, err
	}
	defer stop()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loadErr := make(chan error, 1)
	rig.recv.down.Store(true)
	go func() { loadErr <- steadyLoad(lctx, rig, rate, nil) }()
	time.Sleep(outage)
	rig.recv.down.Store(false)
	back := time.Now()
	time.Sleep(2 * time.Second) // what was accepted before is sealed by now (rounds every second)
	want := map[string]uint64{}
	var backlog uint64
	for _, s := range streams {
		ls, err := rig.store.LogState(ctx, s.TenantID)
		if err != nil {
			return result{}, err
		}
		want[s.ID] = uint64(ls.Size)
		backlog += uint64(ls.Size) - s.Cursor
	}
	var took time.Duration
	for took == 0 {
		done := true
		for _, s := range streams {
			st, err := rig.store.Stream(ctx, s.TenantID, s.ID)
			if err != nil {
				return result{}, err
			}
			done = done && st.Cursor >= want[s.ID]
		}
		if done {
			took = time.Since(back)
			break
		}
		if n := int(time.Since(back) / (200 * time.Millisecond)); n%50 == 0 {
			log.Printf("  catching up: %s since the webhook came back (%d events delivered so far)", time.Since(back).Round(time.Second), rig.recv.events.Load())
		}
		select {
		case err := <-loadErr:
			return result{}, fmt.Errorf("the load stopped: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Since(back) > 30*time.Minute {
			return result{}, fmt.Errorf("no catch-up in 30 minutes")
		}
	}
	cancel()
	log.Printf("  catch-up after %s down at %d events/s: %.1f s for a backlog of %d events", outage, rate, took.Seconds(), backlog)
	return result{Name: fmt.Sprintf("Stream catch-up after a %s outage at %s events/s", outage, thousands(rate)), Unit: "s", Samples: []float64{took.Seconds()},
		Target: "reported",
		Method: fmt.Sprintf("The setup of the latency rows, at a steady %s events/s, with the webhook answering 503 for %s: the streams back off (1 s doubling to 1 min). "+
			"From the moment it answers again: the time until every stream delivered every event sealed two seconds after that moment (everything accepted while it was down), "+
			"the load going on at the same rate meanwhile. One run (it is the longest benchmark).", thousands(rate), outage),
		Notes: fmt.Sprintf("Backlog when the webhook came back: %s events.", thousands(int64(backlog)))}, nil
}
