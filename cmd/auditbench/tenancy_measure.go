package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// measureTenancy reads what the simulation left: the service's streams
// and their open and closed backing indices, the projection to steady
// state and to the goal's cluster, the cluster-state metadata of those
// indices, the node's heap, and the p50/p99 of a tenant admin's first page
// for tenants picked at random, through the read-time retention.
func measureTenancy(ctx context.Context, s *elasticsearch.Store, tenants []gen.Tenant, row *tenancyRow) error {
	var out struct {
		Indices []struct {
			Name       string   `json:"name"`
			Attributes []string `json:"attributes"`
		} `json:"indices"`
		DataStreams []struct {
			Name string `json:"name"`
		} `json:"data_streams"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodGet, "/_resolve/index/"+s.AllStreamsPattern()+",.ds-"+s.AllStreamsPattern()+"?expand_wildcards=all", nil, &out); err != nil {
		return err
	}
	for _, ix := range out.Indices {
		if slices.Contains(ix.Attributes, "closed") {
			row.Closed++
		} else {
			row.OpenIndices++
		}
	}
	row.Streams = len(out.DataStreams)
	row.Dedicated = map[audit.Plan]int{}
	for _, st := range out.DataStreams {
		rest := strings.TrimPrefix(st.Name, s.AllStreamsPattern()[:len(s.AllStreamsPattern())-1])
		plan, tenant, _ := strings.Cut(rest, "-")
		row.ProjectedPrimaries += steadyIndices(audit.Plan(plan))
		if tenant != "shared" {
			row.Dedicated[audit.Plan(plan)]++
		}
	}
	row.ProjectedPerNode = float64(row.ProjectedPrimaries) * 2 / 3
	all := 0
	for _, t := range tenants {
		all += steadyIndices(t.Plan)
	}
	row.DedicatedProjectedPerNode = float64(all) * 2 / 3
	res, err := s.Client().Do(ctx, http.MethodGet, "/_cluster/state/metadata/.ds-"+s.AllStreamsPattern()+","+s.TenantsIndex()+"?expand_wildcards=all", nil)
	if err != nil {
		return err
	}
	row.StateBytes = len(res.Body)
	if row.HeapAfter, err = heapUsedMB(ctx, s); err != nil {
		return err
	}
	return measureTenantQueries(ctx, s, tenants, row)
}

func measureTenantQueries(ctx context.Context, s *elasticsearch.Store, tenants []gen.Tenant, row *tenancyRow) error {
	r := &audit.Retained{Reader: s, Scanner: s, Directory: s, Default: audit.PlanEnterprise}
	rng := rand.New(rand.NewPCG(182, uint64(len(tenants))))
	for i := 0; i < 300; i++ {
		t := tenants[rng.IntN(len(tenants))]
		t0 := time.Now()
		if _, err := r.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: t.ID}, Sort: audit.DefaultSort, PageSize: audit.DefaultPageSize, Page: 1}); err != nil {
			return fmt.Errorf("first page of tenant %s: %w", t.ID, err)
		}
		if i >= 20 { // after a warm-up
			row.QueryMs = append(row.QueryMs, ms(time.Since(t0)))
		}
	}
	return nil
}

// heapUsedMB is the heap used by the node(s), in MB.
func heapUsedMB(ctx context.Context, s *elasticsearch.Store) (float64, error) {
	var out struct {
		Nodes map[string]struct {
			JVM struct {
				Mem struct {
					HeapUsed float64 `json:"heap_used_in_bytes"`
				} `json:"mem"`
			} `json:"jvm"`
		} `json:"nodes"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodGet, "/_nodes/stats/jvm", nil, &out); err != nil {
		return 0, err
	}
	sum := 0.0
	for _, n := range out.Nodes {
		sum += n.JVM.Mem.HeapUsed
	}
	return sum / (1 << 20), nil
}

func tenancyResults(r tenancyRow) []result {
	method := fmt.Sprintf("The tenancy simulation (`make bench-tenancy`; docs/tenancy.md), %d tenants (%d Starter, %d Pro, %d Enterprise), "+
		"%d simulated weeks of %s events each, a lifecycle pass after each week with the store's clock moved on; a shared tenant with more than %d events "+
		"in a week is promoted. The projection counts, for every stream the run left, the backing indices of its plan's full retention, "+
		"times two for one replica, over three nodes. The table of every N is in docs/tenancy-capacity.md.",
		r.N, r.Plans[audit.PlanStarter], r.Plans[audit.PlanPro], r.Plans[audit.PlanEnterprise], tenancyWeeks, thousands(int64(r.Events/tenancyWeeks)), r.PromoteAbove)
	name := fmt.Sprintf("tenancy, %s tenants: ", thousands(int64(r.N)))
	return []result{
		{Name: name + "projected shards per node (3 nodes, 1 replica)", Unit: "shards", Samples: []float64{r.ProjectedPerNode}, Max: 3000,
			Target: "≤ 3,000", Method: method, Notes: fmt.Sprintf("Each tenant in streams of its own would need %.0f per node.", r.DedicatedProjectedPerNode)},
		{Name: name + "first page p99", Unit: "ms", Samples: []float64{percentile(r.QueryMs, 99)}, Max: 100, Target: "≤ 100 ms",
			Method: method, Notes: fmt.Sprintf("p50 %.1f ms over %d first pages of tenants picked at random.", percentile(r.QueryMs, 50), len(r.QueryMs))},
		{Name: name + "write throughput", Unit: "events/s", Samples: r.WriteRates, Target: "reported", Method: method,
			Notes: "One figure per simulated week: 4 writers, batches of 1,000 events of tenants picked by volume."},
	}
}
