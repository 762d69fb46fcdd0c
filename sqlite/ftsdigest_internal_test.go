package sqlite

import "testing"

// TestDocSetHoldsWhatWasAdded: a document set holds exactly the rowids
// added, in whatever order they come (the scan's is ascending; a lower
// one moves the bitmap's base).
func TestDocSetHoldsWhatWasAdded(t *testing.T) {
	var s docSet
	added := map[int64]bool{}
	for _, d := range []int64{1000, 1001, 1063, 1064, 5000, 999, 3, 70000} {
		s.add(d)
		added[d] = true
	}
	for d := int64(0); d < 71000; d++ {
		if s.has(d) != added[d] {
			t.Fatalf("has(%d) = %v, want %v", d, s.has(d), added[d])
		}
	}
	if s.has(-5) || s.has(1<<40) {
		t.Fatal("a rowid far outside the set is held")
	}
}
