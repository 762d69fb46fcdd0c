package vlog_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkLeafData: the canonical encoding of generated events, the leaf
// of the verifiable log, written once for every event sealed.
func BenchmarkLeafData(b *testing.B) {
	g := gen.New(gen.Config{Seed: 3, Tenants: 5, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	for i := 0; b.Loop(); i++ {
		_ = vlog.LeafData(events[i%len(events)])
	}
}
