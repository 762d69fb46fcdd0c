package sqlite

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/vlog"
	"strings"
	"testing"

	fastjson "github.com/goccy/go-json"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkDecodeStoredBody is the row behind reading stored events with
// audit's strict decode (DecodeStoredRow: its fast path, the library on
// anything else) in every read: beside encoding/json, which pages and
// gets used before, and goccy, which the export scan used; the same
// bodies as WriteEvents stores them.
func BenchmarkDecodeStoredBody(b *testing.B) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, 1000)
	bodies := make([][]byte, 1000)
	events := make([]audit.Event, 1000)
	for i := range bodies {
		events[i] = g.Next()
		bodies[i], _ = events[i].AppendStoredJSON(nil)
	}
	b.Run("DecodeStoredRow", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			e := &events[i%len(events)]
			if row := vlog.DecodeStoredRow(e.ID, e.TenantID, bodies[i%len(bodies)]); row.Err != nil {
				b.Fatal(row.Err)
			}
		}
	})
	// The table's bodies are compressed (body.go): decodeBody unpacks,
	// then decodes as above.
	packed := make([][]byte, len(bodies))
	for i := range bodies {
		packed[i] = packBody(nil, bodies[i])
	}
	b.Run("decodeBody-compressed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			e := &events[i%len(events)]
			if row := decodeBody(rowKeys{id: e.ID, tenant: e.TenantID, actorID: strings.ToLower(e.Actor.ID), resourceID: strings.ToLower(e.Resource.ID)}, packed[i%len(packed)]); row.Err != nil {
				b.Fatal(row.Err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var e audit.Event
			if err := json.Unmarshal(bodies[i%len(bodies)], &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var e audit.Event
			if err := fastjson.Unmarshal(bodies[i%len(bodies)], &e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// plainEvent is an event without its MarshalJSON method, as goccy wrote
// SQLite's bodies before.
type plainEvent audit.Event

// BenchmarkEncodeStoredBody is the row behind writing SQLite's bodies
// with audit's encoder (AppendStoredJSON, the fields' table) rather than
// goccy's reflection, which wrote them before.
func BenchmarkEncodeStoredBody(b *testing.B) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	b.Run("AppendStoredJSON", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := events[i%len(events)].AppendStoredJSON(make([]byte, 0, 1024)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendStoredJSON-compressed", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			js, err := events[i%len(events)].AppendStoredJSON(make([]byte, 0, 1024))
			if err != nil {
				b.Fatal(err)
			}
			packBody(nil, js)
		}
	})
	b.Run("goccy", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := fastjson.Marshal((*plainEvent)(&events[i%len(events)])); err != nil {
				b.Fatal(err)
			}
		}
	})
}
