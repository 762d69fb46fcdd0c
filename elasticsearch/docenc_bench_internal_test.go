package elasticsearch

import (
	"encoding/json"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkDocument is the row that decides whether the hand-written
// document encoder (appendDoc) pays for itself: it is measured beside
// encoding/json and go-json-experiment/json (v2) marshalling the doc
// struct it is held to (TestDocEncodingIsTheDocument), on the same events.
func BenchmarkDocument(b *testing.B) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	b.Run("appendDoc", func(b *testing.B) {
		var buf []byte
		for i := 0; b.Loop(); i++ {
			buf = appendDoc(buf[:0], &events[i%len(events)], nil)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := json.Marshal(toDoc(&events[i%len(events)])); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json/v2", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := jsonv2.Marshal(toDoc(&events[i%len(events)])); err != nil {
				b.Fatal(err)
			}
		}
	})
}
