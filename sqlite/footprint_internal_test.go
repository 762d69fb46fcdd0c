package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestFootprintNamesEveryPage: the parts Footprint reports add up to
// every page of the file in use, and the events, their indexes, the
// text index, the rollups and the tree each hold some once events are
// stored and sealed.
func TestFootprintNamesEveryPage(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 4, Tenants: 2, WithIDs: true}, 500)
	events := make([]audit.Event, 500)
	for i := range events {
		events[i] = g.Next()
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	// A tree row by hand: this store has no acceptor, so nothing seals.
	if _, err := s.w.ExecContext(ctx, `INSERT INTO tlog_hash_blocks (tenant_id, block, hashes) VALUES ('t', 0, zeroblob(32))`); err != nil {
		t.Fatal(err)
	}
	parts, err := s.Footprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	got := map[string]int64{}
	for _, p := range parts {
		sum += p.Bytes
		got[p.Name] = p.Bytes
	}
	var pages, free, size int64
	for q, v := range map[string]*int64{"PRAGMA page_count": &pages, "PRAGMA freelist_count": &free, "PRAGMA page_size": &size} {
		if err := s.r.QueryRowContext(ctx, q).Scan(v); err != nil {
			t.Fatal(err)
		}
	}
	if want := (pages - free) * size; sum != want {
		t.Fatalf("the parts add up to %d bytes, the file uses %d: %v", sum, want, parts)
	}
	for _, name := range []string{"event rows (bodies and columns)", "event indexes", "text index", "rollups", "tree: hashes", "everything else"} {
		if got[name] == 0 {
			t.Errorf("%s: nothing, in %v", name, parts)
		}
	}
}
