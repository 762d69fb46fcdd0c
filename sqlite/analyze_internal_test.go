package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestTheWriterKeepsPlannerStatistics: once the events table reaches
// analyzeMin rows the writer has analyzed it, and a reopened store with
// statistics does not analyze again at start.
func TestTheWriterKeepsPlannerStatistics(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	s, err := Open(ctx, Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	stats := func() int {
		var n int
		_ = s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'events'`).Scan(&n)
		return n
	}
	g := gen.New(gen.Config{Seed: 5, Tenants: 2, WithIDs: true}, analyzeMin+500)
	for i := 0; i < analyzeMin+500; i += 500 {
		var b []audit.Event
		for j := 0; j < 500; j++ {
			b = append(b, g.Next())
		}
		if _, err := s.WriteEvents(ctx, b); err != nil {
			t.Fatal(err)
		}
		if i+500 < analyzeMin && stats() != 0 {
			t.Fatalf("analyzed at %d rows, before %d", i+500, analyzeMin)
		}
	}
	if stats() == 0 {
		t.Fatalf("no statistics after %d rows", analyzeMin+500)
	}
	if s.stats.base < analyzeMin || s.stats.since >= s.stats.base {
		t.Fatalf("analyzer after the first ANALYZE: %+v", s.stats)
	}
	s.Close()
	if s, err = Open(ctx, Config{Path: path}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.stats.base != analyzeMin+500 || s.stats.since != 0 {
		t.Fatalf("a reopened store's analyzer: %+v", s.stats)
	}
}
