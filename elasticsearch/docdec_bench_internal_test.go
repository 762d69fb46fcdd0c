package elasticsearch

import (
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	jsonv2 "github.com/go-json-experiment/json"
	fastjson "github.com/goccy/go-json"
)

// BenchmarkDecodeStoredDoc is the row behind reading every stored
// document with decodeStoredDoc (audit's fast path, the strict library
// on anything else), beside goccy/go-json, which read pages before, and
// go-json-experiment/json alone, which verification used, on the same
// documents of generated events.
func BenchmarkDecodeStoredDoc(b *testing.B) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, 1000)
	docs := make([][]byte, 1000)
	for i := range docs {
		e := g.Next()
		docs[i] = appendDoc(nil, &e, nil)
	}
	var sink audit.Event
	b.Run("decodeStoredDoc", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			d, err := decodeStoredDoc(docs[i%len(docs)])
			if err != nil {
				b.Fatal(err)
			}
			sink = d.event()
		}
	})
	b.Run("decodeStoredEvent", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			e, err := decodeStoredEvent(docs[i%len(docs)])
			if err != nil {
				b.Fatal(err)
			}
			sink = e
		}
	})
	b.Run("goccy", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var d doc
			if err := fastjson.Unmarshal(docs[i%len(docs)], &d); err != nil {
				b.Fatal(err)
			}
			sink = d.event()
		}
	})
	b.Run("jsonv2", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var d doc
			if err := jsonv2.Unmarshal(docs[i%len(docs)], &d); err != nil {
				b.Fatal(err)
			}
			sink = d.event()
		}
	})
	_ = sink
}
