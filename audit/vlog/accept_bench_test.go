package vlog_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkAcceptTag: the acceptance tag of generated events (the
// canonical encoding's digest and the MAC), made for every event accepted,
// and its check, made for every row sealed.
func BenchmarkAcceptTag(b *testing.B) {
	g := gen.New(gen.Config{Seed: 3, Tenants: 5, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	a, err := vlog.NewAcceptor([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("TagEvent", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = a.TagEvent(&events[i%len(events)])
		}
	})
	tags := make([][]byte, len(events))
	for i := range events {
		tags[i] = a.TagEvent(&events[i])
	}
	b.Run("Check", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			e := &events[i%len(events)]
			if err := a.Check(e.TenantID, e.ID, vlog.EventDigest(e), tags[i%len(events)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
