package elasticsearch

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestSortTimeReadsTheTimestampElasticsearchSortsBy: the first sort value
// of a timestamp scan is the @timestamp in epoch milliseconds; anything
// else is not known (and the slicer then widens its slice rather than
// guessing where the page ended).
func TestSortTimeReadsTheTimestampElasticsearchSortsBy(t *testing.T) {
	want := time.Date(2026, 11, 28, 9, 30, 12, 345e6, time.UTC)
	if got, ok := sortTime(json.RawMessage(`[1795858212345,"evt_audit_x",17]`)); !ok || !got.Equal(want) {
		t.Fatalf("sortTime = %v %v, want %v", got, ok, want)
	}
	for _, bad := range []string{`["evt_audit_x",1]`, `[]`, `{}`, `[1.5]`, `[`} {
		if _, ok := sortTime(json.RawMessage(bad)); ok {
			t.Errorf("sortTime(%s) is known", bad)
		}
	}
}

// TestSlicesMoveOnWhateverThePageSays: a full page moves the slice to its
// last timestamp, or doubles the slice when its times are unknown; a
// short page moves past the slice, and the window ends at its end.
func TestSlicesMoveOnWhateverThePageSays(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	ts := newTimeSlices(audit.Filter{From: &from, To: &to}, audit.Sort{Field: audit.SortTimestamp})
	f := ts.filter(audit.Filter{})
	if !f.From.Equal(from) || !f.To.Equal(from.Add(firstSlice)) {
		t.Fatalf("first slice %v..%v", f.From, f.To)
	}
	last := from.Add(20 * time.Second)
	if !ts.next(10, from.Add(10*time.Second), last, true, 10) || !ts.lo.Equal(last) || ts.span != 20*time.Second {
		t.Fatalf("after a full page: lo %v span %v", ts.lo, ts.span)
	}
	ts.filter(audit.Filter{})
	if !ts.next(10, time.Time{}, time.Time{}, false, 10) || !ts.lo.Equal(last) || ts.span != 40*time.Second {
		t.Fatalf("after a full page of unknown times: lo %v span %v", ts.lo, ts.span)
	}
	ts.filter(audit.Filter{})
	if !ts.next(3, time.Time{}, time.Time{}, false, 10) || !ts.lo.Equal(last.Add(40*time.Second)) || ts.span != 160*time.Second {
		t.Fatalf("after a short page: lo %v span %v", ts.lo, ts.span)
	}
	for i := 0; ; i++ {
		ts.filter(audit.Filter{})
		if !ts.next(0, time.Time{}, time.Time{}, false, 10) {
			break
		}
		if i > 20 {
			t.Fatal("the window never ends")
		}
	}
	if !ts.lo.Equal(to) {
		t.Fatalf("ended at %v, want %v", ts.lo, to)
	}
}
