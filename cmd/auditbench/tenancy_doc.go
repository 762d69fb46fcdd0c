package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// capacityDoc is docs/tenancy-capacity.md: the capacity table of the
// tenancy simulation, one row per N.
func capacityDoc(e *env, rows []tenancyRow) string {
	var b strings.Builder
	b.WriteString("# Tenancy capacity (generated)\n\n")
	fmt.Fprintf(&b, "Written by `make bench-tenancy` (cmd/auditbench, tenancy.go) on %s against Elasticsearch %s on this machine's single test node, at BENCH_SCALE %g. Do not edit by hand; the design is in [tenancy.md](tenancy.md).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), e.esVersion, e.scale)
	fmt.Fprintf(&b, "Each run: N tenants (70%% Starter, 25%% Pro, 5%% Enterprise; Zipf-skewed volumes, an Enterprise tenant 16 times and a Pro tenant 4 times a Starter tenant of the same rank), every one new in its plan's shared stream (the default layout), written week by week over %d simulated weeks with the store's clock moved on, and a lifecycle pass after each week (rollover, deletion past the retention, hibernation, promotion of the tenants past the 99th percentile of weekly volume). Volumes are scaled down (the weekly events are in the table): below the size rollover (10–50 GB a shard) shard counts depend on tenants and time, not on volume.\n\n", tenancyWeeks)
	fmt.Fprintf(&b, "*Projected* counts, for every stream the run left, the backing indices its plan holds once its whole retention is full (Starter 6, Pro 14, Enterprise 30: one per rollover period, and the write index), doubled for one replica and spread over three nodes; the same for every tenant in streams of its own is the column after. The node's heap in use depends on when it last collected garbage; the projected heap is the projected shards per node times %.2f MB, the heap a shard cost when this node held 4,202 of them (issue 18). *Now* is what the node holds after 13 months (Enterprise's streams are not full yet).\n\n", heapPerShardMB)
	b.WriteString("| Tenants (S/P/E) | Weekly events | Promoted (S/P/E) | Streams | Backing indices now (closed) | Projected primaries | **Projected shards per node** | All dedicated, per node | Cluster-state metadata | Node heap used at the end | Projected heap per node | Write, median events/s | First page p50 / p99 | Lifecycle pass, median / max |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s (%d/%d/%d) | %s | %d/%d/%d | %d | %d (%d) | %d | **%.0f** | %.0f | %.0f KB | %.0f MB | %.0f MB | %.0f | %.1f / %.1f ms | %.2f / %.2f s |\n",
			thousands(int64(r.N)), r.Plans[audit.PlanStarter], r.Plans[audit.PlanPro], r.Plans[audit.PlanEnterprise],
			thousands(int64(r.Events/tenancyWeeks)),
			r.Dedicated[audit.PlanStarter], r.Dedicated[audit.PlanPro], r.Dedicated[audit.PlanEnterprise],
			r.Streams, r.OpenIndices, r.Closed, r.ProjectedPrimaries, r.ProjectedPerNode, r.DedicatedProjectedPerNode,
			float64(r.StateBytes)/1024, r.HeapAfter, r.ProjectedPerNode*heapPerShardMB, median(r.WriteRates),
			percentile(r.QueryMs, 50), percentile(r.QueryMs, 99), median(r.PassSeconds), maxOf(r.PassSeconds))
	}
	for _, r := range rows {
		if r.PassFailures > 0 {
			fmt.Fprintf(&b, "\nWith %s tenants, %d of the %d lifecycle passes had a stream fail (retried by the next pass, as in the service).\n", thousands(int64(r.N)), r.PassFailures, tenancyWeeks)
		}
	}
	b.WriteString("\nThe goal (issue 18): 10,000 tenants on three nodes at no more than 3,000 shards per node with one replica, each tenant seeing exactly its plan's retention (enforced at read time on every read path, docs/tenancy.md).\n")
	return b.String()
}

// heapPerShardMB is the heap one shard cost on the test node (issue 18:
// 4,202 shards took about 460 MB).
const heapPerShardMB = 0.11

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
