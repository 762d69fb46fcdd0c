package audit

import (
	"fmt"
	"time"
)

// MaxBuckets bounds a stats histogram, whatever the range: a request for
// one-minute buckets over years of events must not build millions of
// them (it once answered 665 MB).
const MaxBuckets = 2000

// Span is the time range of the events matching a filter: the first and
// the last timestamp, and whether there is any.
type Span struct {
	First, Last time.Time
	Any         bool
}

// NeedsSpan reports whether q's histogram range is open and must be
// resolved (Resolve) from the matching events' Span before it is run.
func (q StatsQuery) NeedsSpan() bool {
	return q.Interval > 0 && (q.Filter.From == nil || q.Filter.To == nil)
}

// Resolve closes an open histogram range on the matching events: an open
// from becomes the first event's time, an open to the instant after the
// last event. The set of matching events is unchanged. With no matching
// event the histogram is empty and its range is not used.
func (q StatsQuery) Resolve(sp Span) StatsQuery {
	if !q.NeedsSpan() || !sp.Any {
		return q
	}
	f := q.Filter
	if f.From == nil {
		first := sp.First.UTC()
		f.From = &first
	}
	if f.To == nil {
		end := sp.Last.UTC().Add(time.Millisecond)
		f.To = &end
	}
	q.Filter = f
	return q
}

// CheckBuckets returns an EINVALID error naming interval when q's
// histogram over its (resolved) range would have more than MaxBuckets
// buckets, with the smallest round interval that fits.
func (q StatsQuery) CheckBuckets() error {
	if q.Interval <= 0 || q.Filter.From == nil || q.Filter.To == nil {
		return nil
	}
	n := buckets(*q.Filter.From, *q.Filter.To, q.Interval)
	if n <= MaxBuckets {
		return nil
	}
	hint := "narrow from/to"
	for _, d := range roundIntervals {
		if d > q.Interval && buckets(*q.Filter.From, *q.Filter.To, d) <= MaxBuckets {
			hint = "use an interval of at least " + FormatInterval(d) + ", or narrow from/to"
			break
		}
	}
	return &Error{Code: EINVALID, Message: "too many histogram buckets", Fields: []FieldError{{Field: "interval",
		Message: fmt.Sprintf("%s from %s to %s makes %d buckets; the limit is %d: %s",
			FormatInterval(q.Interval), NewTimestamp(*q.Filter.From), NewTimestamp(*q.Filter.To), n, MaxBuckets, hint)}}}
}

// buckets counts the histogram buckets of [from, to) at width iv. Buckets
// are aligned on the Unix epoch, as both stores align them.
func buckets(from, to time.Time, iv time.Duration) int64 {
	w := iv.Milliseconds()
	first := from.UnixMilli() / w
	last := (to.UnixMilli() - 1) / w
	return last - first + 1
}

var roundIntervals = []time.Duration{
	time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour,
	12 * time.Hour, 24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour, 90 * 24 * time.Hour, 365 * 24 * time.Hour,
}

// FormatInterval writes d in the largest whole unit of the interval
// syntax (1d, 15m, 90s).
func FormatInterval(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		s    string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d%u.unit == 0 {
			return fmt.Sprintf("%d%s", d/u.unit, u.s)
		}
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}
