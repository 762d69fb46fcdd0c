package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/mask"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// indexerEventWork times, with testing.Benchmark, the indexer's own work
// per event without the network: decode and validate a message as the
// indexer does (the sensitive-change policy masking it), append its
// _bulk create, and compute the event digest a sealing store's ticket
// carries. It reports ns and allocations per event, one sample a run.
func indexerEventWork(runs int) []result {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, Skew: 1.1, WithIDs: true}, 1000)
	msgs := make([][]byte, 1000)
	for i := range msgs {
		msgs[i], _ = json.Marshal(g.Next())
	}
	var ns, allocs []float64
	for range max(runs, 1) {
		r := testing.Benchmark(func(b *testing.B) {
			now := time.Now()
			var policy mask.Policy
			var buf bytes.Buffer
			events := make([]audit.Event, len(msgs))
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				for i, m := range msgs {
					e := &events[i] // decoded in its place in the batch, as the indexer decodes
					err := policy.DecodeOwned(e, m, now)
					if err == nil {
						err = elasticsearch.AppendBulkCreate(&buf, "auditlog-events-pro-7c9e6679-7425-40de-944b-e07fc1f90ae7", e)
					}
					if err != nil {
						b.Fatal(err)
					}
					_ = vlog.EventDigest(e)
				}
			}
		})
		ns = append(ns, float64(r.NsPerOp())/float64(len(msgs)))
		allocs = append(allocs, float64(r.AllocsPerOp())/float64(len(msgs)))
	}
	method := fmt.Sprintf("`testing.Benchmark` over 1,000 generated events (the indexer row's generator) as Kafka messages: `mask.Policy.Decode` (decoding, validation, masking, the diff), `elasticsearch.AppendBulkCreate`, `vlog.EventDigest` (what a sealing store's ticket carries); one benchmark a run, %d runs.", max(runs, 1))
	return []result{
		{Name: "Indexer work per event (no network)", Unit: "µs", Samples: scaled(ns, 1e-3), Target: "reported (the CPU row above has the target)", Method: method},
		{Name: "Indexer allocations per event", Unit: "allocs", Samples: allocs, Target: "reported", Method: method},
	}
}

func scaled(v []float64, k float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * k
	}
	return out
}
