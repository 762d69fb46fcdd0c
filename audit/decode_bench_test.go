package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	fastjson "github.com/goccy/go-json"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkDecodeJSON compares, on generated events, ways an event's JSON
// can be decoded: the standard library's strict decoder alone, its
// validation followed by goccy/go-json's strict decoder, and DecodeEvent
// (validation, the one-pass decoder, normalization and the rules). It is
// what decides whether the hand-written decoding pays for its risk (the
// README's JSON paragraph).
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
	b.Run("valid+goccy", func(b *testing.B) {
		b.SetBytes(int64(size / len(raws)))
		for i := 0; i < b.N; i++ {
			var e audit.Event
			raw := raws[i%len(raws)]
			if !json.Valid(raw) {
				b.Fatal("invalid")
			}
			dec := fastjson.NewDecoder(bytes.NewReader(raw))
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

// BenchmarkEncodeJSON compares encoding/json and goccy/go-json marshalling
// events, as the stores do for every write (the Elasticsearch bulk body,
// the SQLite row).
func BenchmarkEncodeJSON(b *testing.B) {
	g := gen.New(gen.Config{Seed: 3, Tenants: 5, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	b.Run("encoding/json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := json.Marshal(&events[i%len(events)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goccy", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := fastjson.Marshal(&events[i%len(events)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
