package elasticsearch

import (
	"time"

	"github.com/auditlog/auditlog/audit"
)

// timeSlices bounds each page of an ascending timestamp scan of a bounded
// window (the periodic export's file order) to a slice of time just after
// the scan's position. Each backing index is sorted by descending
// timestamp, and there a page in ascending order costs a pass over every
// remaining event of the window: a day of 100k events was read at a third
// of the descending rate. A page bounded to a slice costs that slice only,
// so slices hold about two pages' worth of events (the export of a day
// ran at 53%, 69% and 80% of the descending read with slices of eight,
// four and two pages). search_after still orders ties, so slices change
// which events a page considers, never which it returns.
type timeSlices struct {
	lo, hi, end time.Time
	span        time.Duration
}

// firstSlice is the slice of a timestamp span where events are scanned
// from, before the first page says how dense they are.
const firstSlice = time.Minute

// newTimeSlices returns the slices of a scan, or nil where the scan is
// not ascending by timestamp over a bounded window.
func newTimeSlices(f audit.Filter, so audit.Sort) *timeSlices {
	if so.Field != audit.SortTimestamp || so.Desc || f.From == nil || f.To == nil || !f.From.Before(*f.To) {
		return nil
	}
	return &timeSlices{lo: *f.From, end: *f.To, span: firstSlice}
}

// filter is f narrowed to the current slice [lo, hi).
func (t *timeSlices) filter(f audit.Filter) audit.Filter {
	if t == nil {
		return f
	}
	t.hi = t.lo.Add(t.span)
	if t.hi.After(t.end) {
		t.hi = t.end
	}
	lo, hi := t.lo, t.hi
	f.From, f.To = &lo, &hi
	return f
}

// next moves past a page of the current slice (size asked, n hits got,
// the first and last hits' timestamps when known) and reports whether the
// window has more to read. A full page may leave events in the slice: the
// next slice starts at its last timestamp, about two pages long at the
// page's density (twice as long as it was when the page's times are not
// known; search_after still moves on). A short page exhausted the slice:
// the next one starts at its end, four times as long.
func (t *timeSlices) next(n int, first, last time.Time, known bool, size int) bool {
	if n > 0 && n >= size {
		if known {
			t.lo, t.span = last, max(2*last.Sub(first), time.Millisecond)
		} else {
			t.span *= 2
		}
		return true
	}
	t.lo, t.span = t.hi, 4*t.span
	return t.lo.Before(t.end)
}
