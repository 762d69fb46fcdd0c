package periodicexport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

// TestDataLinesAreTheEvents: each line of a data file decodes to the
// event written, every field kept (the writer's encoder is not the API's,
// so this holds them to the same shape), in order, a repeated id once.
func TestDataLinesAreTheEvents(t *testing.T) {
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, WithIDs: true, Start: oct1, End: oct1.Add(24 * time.Hour)}, 800)
	var events []audit.Event
	for i := 0; i < 800; i++ {
		events = append(events, g.Next())
	}
	b := localfs.Dir{Root: t.TempDir()}
	w := &periodicexport.Writer{Bucket: b, Prefix: "exports", Key: newKey(t), TempDir: t.TempDir(), Now: time.Now}
	win := periodicexport.Window{TenantID: events[0].TenantID, Start: oct1, End: oct1.Add(24 * time.Hour)}
	f, err := w.WriteFile(ctx, win, func(yield func(*audit.Event) error) error {
		for i := range events {
			if err := yield(&events[i]); err != nil {
				return err
			}
			if i == 10 {
				if err := yield(&events[i]); err != nil { // a repeat, back to back
					return err
				}
			}
		}
		return nil
	})
	must(t, err)
	if f.Count != int64(len(events)) {
		t.Fatalf("count %d, want %d", f.Count, len(events))
	}
	r, err := b.Open(ctx, f.Key)
	must(t, err)
	defer r.Close()
	zr, err := gzip.NewReader(r)
	must(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	i := 0
	for ; sc.Scan(); i++ {
		var got audit.Event
		must(t, json.Unmarshal(sc.Bytes(), &got))
		if !audit.SameEvent(&got, &events[i]) {
			t.Fatalf("line %d is %s, want event %s", i, sc.Bytes(), events[i].ID)
		}
	}
	if i != len(events) {
		t.Fatalf("%d lines, want %d", i, len(events))
	}
}
