package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkDecodeJSON compares, on generated events, ways an event's JSON
// can be decoded: the standard library's decoder with unknown fields
// refused (which still takes duplicate and case-folded keys and rewrites
// invalid UTF-8), and DecodeEvent (the strict decode of
// go-json-experiment/json, normalization and the rules).
func BenchmarkDecodeJSON(b *testing.B) {
	g := gen.New(gen.Config{Seed: 3, Tenants: 5, WithIDs: true}, 1000)
	var raws [][]byte
	size := 0
	for i := 0; i < 1000; i++ {
		e := g.Next()
		raw, _ := json.Marshal(e)
		raws = append(raws, raw)
		size += len(raw)
	}
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(size / len(raws)))
		for i := 0; i < b.N; i++ {
			var e audit.Event
			dec := json.NewDecoder(bytes.NewReader(raws[i%len(raws)]))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeEvent", func(b *testing.B) {
		b.SetBytes(int64(size / len(raws)))
		now := time.Now()
		for i := 0; i < b.N; i++ {
			if _, err := audit.DecodeEvent(raws[i%len(raws)], now); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncodeJSON is the row that decides whether the hand-written
// encoder of the API answer (Event.AppendJSON) pays for itself: it is
// measured beside encoding/json and go-json-experiment/json (v2) writing
// the same struct, without its MarshalJSON method, on the same events.
func BenchmarkEncodeJSON(b *testing.B) {
	g := gen.New(gen.Config{Seed: 3, Tenants: 5, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	type plain audit.Event // the same fields, without MarshalJSON
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			var err error
			if buf, err = events[i%len(events)].AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal((*plain)(&events[i%len(events)])); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json/v2", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := jsonv2.Marshal((*plain)(&events[i%len(events)])); err != nil {
				b.Fatal(err)
			}
		}
	})
}
