package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// The tenancy simulation (issue 18): N tenants, 70% Starter, 25% Pro, 5%
// Enterprise, with Zipf-skewed volumes, written week by week over
// simulated months with the store's clock moved on, a lifecycle pass after
// each week. It measures the layout the service runs by default: every
// tenant in its plan's shared stream, the biggest promoted to their own.
const (
	tenancyWeeks = 56 // 13 months: Starter and Pro reach their steady state
	day          = 24 * time.Hour
)

// tenancyRow is what one N measured.
type tenancyRow struct {
	N                         int
	Plans                     map[audit.Plan]int
	Dedicated                 map[audit.Plan]int // promoted tenants, by plan
	Events                    int
	OpenIndices, Closed       int // backing indices of the service's streams (one primary shard each)
	Streams                   int
	ProjectedPrimaries        int // at steady state (every plan's full retention)
	ProjectedPerNode          float64
	DedicatedProjectedPerNode float64 // the same tenants, each in streams of its own
	StateBytes                int     // cluster-state metadata of the service's indices
	HeapAfter                 float64 // MB, node heap used at the end
	WriteRates                []float64
	QueryMs                   []float64
	PassSeconds               []float64
	PromoteAbove              int64
	PassFailures              int // lifecycle passes in which some stream failed
}

func benchTenancy(ctx context.Context, e *env) ([]result, error) {
	var rows []tenancyRow
	for _, n := range []int{1000, 5000, 10000} {
		n = max(50, int(float64(n)*e.scale))
		log.Printf("  tenancy: %d tenants, %d simulated weeks", n, tenancyWeeks)
		t0 := time.Now()
		row, err := simulateTenancy(ctx, e, n)
		if err != nil {
			return nil, fmt.Errorf("%d tenants: %w", n, err)
		}
		rows = append(rows, row)
		log.Printf("  tenancy: %d tenants in %s: %d streams, %d open backing indices, %.0f projected shards per node, first page p99 %.1f ms",
			n, time.Since(t0).Round(time.Second), row.Streams, row.OpenIndices, row.ProjectedPerNode, percentile(row.QueryMs, 99))
		// Each N's row is kept at once: a later N that fails loses only itself.
		if err := os.WriteFile(e.capacityOut, []byte(capacityDoc(e, rows)), 0o644); err != nil {
			return nil, err
		}
	}
	var out []result
	for _, r := range rows {
		out = append(out, tenancyResults(r)...)
	}
	return out, nil
}

// tenancyPlans gives each tenant a plan (70/25/5) and a share of the
// events: its Zipf weight times its plan's factor (an Enterprise tenant
// is bigger).
func tenancyPlans(tenants []gen.Tenant, n int) ([]float64, map[audit.Plan]int) {
	rng := rand.New(rand.NewPCG(18, uint64(n)))
	factor := map[audit.Plan]float64{audit.PlanStarter: 1, audit.PlanPro: 4, audit.PlanEnterprise: 16}
	counts := map[audit.Plan]int{}
	cum := make([]float64, len(tenants))
	sum := 0.0
	for i := range tenants {
		switch r := rng.Float64(); {
		case r < 0.70:
			tenants[i].Plan = audit.PlanStarter
		case r < 0.95:
			tenants[i].Plan = audit.PlanPro
		default:
			tenants[i].Plan = audit.PlanEnterprise
		}
		counts[tenants[i].Plan]++
		sum += tenants[i].Weight * factor[tenants[i].Plan]
		cum[i] = sum
	}
	for i := range cum {
		cum[i] /= sum
	}
	return cum, counts
}

// promoteThreshold is the weekly volume of the tenant at the 99th
// percentile of shares: about 1% of the tenants get streams of their own.
func promoteThreshold(cum []float64, weekly int) int64 {
	shares := make([]float64, len(cum))
	prev := 0.0
	for i, c := range cum {
		shares[i], prev = c-prev, c
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(shares)))
	return int64(shares[len(shares)/100] * float64(weekly))
}

func simulateTenancy(ctx context.Context, e *env, n int) (tenancyRow, error) {
	weekly := max(2000, int(21000*e.scale))
	g := gen.New(gen.Config{Seed: 18, Tenants: n, Skew: 1.1, WithIDs: true}, 1)
	tenants := g.Tenants()
	cum, plans := tenancyPlans(tenants, n)
	row := tenancyRow{N: n, Plans: plans, PromoteAbove: promoteThreshold(cum, weekly)}
	var clock atomic.Int64
	start := time.Now().Add(-tenancyWeeks * 7 * day).Truncate(time.Millisecond)
	clock.Store(start.UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	s, err := tenancyStore(ctx, e, row.PromoteAbove, now)
	if err != nil {
		return row, err
	}
	if err := registerTenants(ctx, s, tenants); err != nil {
		return row, err
	}
	rng := rand.New(rand.NewPCG(181, uint64(n)))
	for week := 0; week < tenancyWeeks; week++ {
		from := start.Add(time.Duration(week) * 7 * day)
		evs := make([]audit.Event, weekly)
		for j := range evs {
			t := sort.SearchFloat64s(cum, rng.Float64())
			evs[j] = g.NextFor(&tenants[min(t, n-1)], from.Add(time.Duration(rng.Int64N(int64(7*day)))))
		}
		clock.Store(from.Add(7 * day).UnixMilli())
		t0 := time.Now()
		if err := writeConcurrently(ctx, s, evs, 4); err != nil {
			return row, fmt.Errorf("writing week %d: %w", week, err)
		}
		row.WriteRates = append(row.WriteRates, float64(len(evs))/time.Since(t0).Seconds())
		row.Events += len(evs)
		t0 = time.Now()
		if _, err := s.RunLifecycle(ctx); err != nil {
			// As in the service, a stream whose part failed is retried by
			// the next pass; the failures are counted and reported.
			if ctx.Err() != nil {
				return row, ctx.Err()
			}
			row.PassFailures++
			log.Printf("  lifecycle pass of week %d: %v", week, err)
		}
		row.PassSeconds = append(row.PassSeconds, time.Since(t0).Seconds())
	}
	clock.Store(time.Now().UnixMilli())
	if err := measureTenancy(ctx, s, tenants, &row); err != nil {
		return row, fmt.Errorf("measuring: %w", err)
	}
	closeRun(ctx, s)
	return row, nil
}

// closeRun closes this run's indices, stream by stream, so that the next
// N starts with no shard of it. It is clean-up, not measurement: a stream
// that fails to close is logged.
func closeRun(ctx context.Context, s *elasticsearch.Store) {
	var out struct {
		DataStreams []struct {
			Name string `json:"name"`
		} `json:"data_streams"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodGet, "/_resolve/index/"+s.AllStreamsPattern(), nil, &out); err != nil {
		log.Printf("  closing the run's indices: %v", err)
		return
	}
	for _, st := range out.DataStreams {
		if err := s.Client().DoJSON(ctx, http.MethodPost, "/.ds-"+st.Name+"-*/_close?expand_wildcards=all&allow_no_indices=true", nil, nil); err != nil {
			log.Printf("  closing %s: %v", st.Name, err)
		}
	}
}

func tenancyStore(ctx context.Context, e *env, promoteAbove int64, now func() time.Time) (*elasticsearch.Store, error) {
	// Cluster-state changes slow down with thousands of indices on the one
	// test node: a longer request timeout than the service's default.
	return benchStore(ctx, e, elasticsearch.Config{IndexPrefix: uniq("tenancy"), RequestTimeout: 2 * time.Minute},
		elasticsearch.StoreConfig{Accept: benchAccept, DefaultPlan: audit.PlanEnterprise, Now: now, NewTenants: elasticsearch.LayoutShared, PromoteAbove: promoteAbove})
}

// registerTenants puts every tenant in the directory with its plan, 16 at
// a time (the real SetPlan).
func registerTenants(ctx context.Context, s *elasticsearch.Store, tenants []gen.Tenant) error {
	work := make(chan gen.Tenant)
	var failed atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				if err := s.SetPlan(ctx, t.ID, t.Plan); err != nil {
					failed.Store(err)
				}
			}
		}()
	}
	for _, t := range tenants {
		work <- t
	}
	close(work)
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return err
	}
	return nil
}

// writeConcurrently writes events in batches of 1,000 with the given
// writers, writing retries again.
func writeConcurrently(ctx context.Context, s audit.EventWriter, events []audit.Event, writers int) error {
	batches := make(chan []audit.Event, len(events)/1000+1)
	for i := 0; i < len(events); i += 1000 {
		batches <- events[i:min(i+1000, len(events))]
	}
	close(batches)
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func() {
			for b := range batches {
				if err := writeRetrying(ctx, s, b); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

// writeRetrying writes a batch as the indexer does: items answered retry,
// and a batch that failed as a whole (a timeout on the loaded node), are
// written again after a pause, up to ten times.
func writeRetrying(ctx context.Context, s audit.EventWriter, b []audit.Event) error {
	attempts := 0
	res, err := audit.WriteSettled(ctx, s, b, audit.Retrier{
		Wait: func(ctx context.Context) bool {
			attempts++
			select {
			case <-ctx.Done():
				return false
			case <-time.After(time.Second):
			}
			return attempts <= 10
		},
		BatchFailed: func(err error, n int) bool {
			log.Printf("  a batch of %d events failed, written again: %v", n, err)
			return true
		},
		ItemsRetried: func(int, audit.WriteResult) {},
	})
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
			return fmt.Errorf("write: %v %s", r.Status, r.Reason)
		}
	}
	return nil
}

// steadyIndices is how many backing indices a stream of plan holds once
// its retention is full: one per rollover period of the retention, and
// the write index.
func steadyIndices(plan audit.Plan) int {
	roll, _ := elasticsearch.RolloverPeriod(plan)
	return int((plan.Retention()+roll-1)/roll) + 1
}
