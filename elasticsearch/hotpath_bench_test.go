package elasticsearch_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkIndexerEvent is the indexer's own work per event, without the
// network: decode and validate a message as the indexer does (the
// sensitive-change policy included), append its _bulk create, and compute
// the leaf hash its ticket carries. make bench reports its ns and
// allocations per event next to the indexer's CPU per 1,000 events.
func BenchmarkIndexerEvent(b *testing.B) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, 1000)
	msgs := make([][]byte, 1000)
	for i := range msgs {
		e := g.Next()
		msgs[i], _ = json.Marshal(e)
	}
	now := time.Now()
	var policy audit.SensitivePolicy
	var buf bytes.Buffer
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		buf.Reset()
		for _, m := range msgs {
			e, err := policy.Decode(m, now)
			if err != nil {
				b.Fatal(err)
			}
			if err := elasticsearch.AppendBulkCreate(&buf, "auditlog-events-pro-7c9e6679-7425-40de-944b-e07fc1f90ae7", &e); err != nil {
				b.Fatal(err)
			}
			_ = audit.LeafHash(e)
		}
		n += len(msgs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
}
