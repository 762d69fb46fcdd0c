package sqlite_test

import (
	"context"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// BenchmarkWriteEvents writes batches of 500 (fsynced each).
func BenchmarkWriteEvents(b *testing.B) {
	s := open(&testing.T{})
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, b.N*500+500)
	b.ReportAllocs()
	for b.Loop() {
		batch := make([]audit.Event, 500)
		for i := range batch {
			batch[i] = g.Next()
		}
		if _, err := s.WriteEvents(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*500)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWriteEventsConcurrent writes batches of 500 from two callers,
// as two HTTP ingest clients do: group commit merges them.
func BenchmarkWriteEventsConcurrent(b *testing.B) {
	s := open(&testing.T{})
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, WithIDs: true}, b.N*500+1000)
	batches := make(chan []audit.Event, 2)
	go func() {
		for i := 0; i < b.N; i++ {
			batch := make([]audit.Event, 500)
			for j := range batch {
				batch[j] = g.Next()
			}
			batches <- batch
		}
		close(batches)
	}()
	b.ResetTimer()
	b.SetParallelism(1)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			batch, ok := <-batches
			if !ok {
				return
			}
			if _, err := s.WriteEvents(context.Background(), batch); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*500)/b.Elapsed().Seconds(), "events/s")
}
