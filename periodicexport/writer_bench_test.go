package periodicexport_test

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

// BenchmarkWriteFile is the writer's own cost per event (encode, gzip,
// hash, temporary file, bucket copy), without the store's scan.
func BenchmarkWriteFile(b *testing.B) {
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	g := gen.New(gen.Config{Seed: 1, Tenants: 1, WithIDs: true, Start: day, End: day.Add(24 * time.Hour)}, 20000)
	events := make([]audit.Event, 20000)
	for i := range events {
		events[i] = g.Next()
	}
	_, key, _ := ed25519.GenerateKey(nil)
	dir := b.TempDir()
	w := &periodicexport.Writer{Bucket: localfs.Dir{Root: dir}, Prefix: "auditlog", Key: key, TempDir: dir, Now: time.Now}
	win := periodicexport.Window{TenantID: events[0].TenantID, Start: day, End: day.Add(24 * time.Hour)}
	var size int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		win.Late = i + 1
		f, err := w.WriteFile(context.Background(), win, func(yield func(*audit.Event) error) error {
			for j := range events {
				if err := yield(&events[j]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		size = f.ObjectSize
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	b.ReportMetric(float64(size)/float64(len(events)), "gzip-B/event")
}
