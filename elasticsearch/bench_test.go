package elasticsearch_test

import (
	"bytes"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkBulkBody builds the _bulk body of a 1000-event batch.
func BenchmarkBulkBody(b *testing.B) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		for i := range events {
			if err := elasticsearch.AppendBulkCreate(&buf, "auditlog-events-pro-7c9e6679-7425-40de-944b-e07fc1f90ae7", &events[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(int64(buf.Len()))
}
