package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// MaxBuckets bounds a stats histogram, whatever the range: a request for
// one-minute buckets over years of events must not build millions of
// them (it once answered 665 MB).
const MaxBuckets = 2000

// GroupField is a field stats can be grouped by.
type GroupField string

// The group-by fields.
const (
	GroupAction       GroupField = "action"
	GroupResourceType GroupField = "resource.type"
	GroupActorEmail   GroupField = "actor.email"
	GroupCategory     GroupField = "category"
	GroupOutcome      GroupField = "outcome"
)

// Valid reports whether g can be grouped by.
func (g GroupField) Valid() bool {
	switch g {
	case GroupAction, GroupResourceType, GroupActorEmail, GroupCategory, GroupOutcome:
		return true
	}
	return false
}

// Query aggregates a filter's events by a field and/or over time.
type Query struct {
	Filter   audit.Filter
	GroupBy  GroupField    // optional
	Interval time.Duration // optional: histogram bucket width
	// MaxGroups bounds the groups returned (the largest first).
	MaxGroups int
}

// Group is one value and its count.
type Group struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
}

// Bucket is one histogram bucket: its start and count, and per-group
// counts when grouped.
type Bucket struct {
	Start  audit.Timestamp `json:"start"`
	Count  int64           `json:"count"`
	Groups []Group         `json:"groups,omitempty"`
}

// Stats is the answer of EventStats. Its JSON always has the three keys,
// groups and histogram as empty lists when not asked or when nothing
// matches, so an empty tenant answers the same shape as a full one.
type Stats struct {
	Total     int64    `json:"total"`
	Groups    []Group  `json:"groups"`
	Histogram []Bucket `json:"histogram"`
}

// MarshalJSON writes absent groups and histogram as [].
func (s Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	p := plain(s)
	if p.Groups == nil {
		p.Groups = []Group{}
	}
	if p.Histogram == nil {
		p.Histogram = []Bucket{}
	}
	return json.Marshal(p)
}

// Reader aggregates a tenant's events.
type Reader interface {
	// EventStats aggregates the events of q's filter. Callers resolve an
	// open histogram range first (Query.NeedsSpan, Resolve) and check
	// CheckBuckets: a store builds at most MaxBuckets buckets.
	EventStats(ctx context.Context, q Query) (Stats, error)
}

// Retained aggregates through the tenants' plan retention
// (audit.Retained): an event past it is never counted.
type Retained struct {
	Reader    Reader
	Retention *audit.Retained
}

// EventStats implements Reader.
func (r Retained) EventStats(ctx context.Context, q Query) (Stats, error) {
	f, err := r.Retention.Clamp(ctx, q.Filter)
	if err != nil {
		return Stats{}, err
	}
	if q.Filter.To != nil && !f.From.Before(*q.Filter.To) {
		return Stats{Groups: []Group{}, Histogram: []Bucket{}}, nil // the whole range has expired
	}
	q.Filter = f
	return r.Reader.EventStats(ctx, q)
}

// NeedsSpan reports whether q's histogram range is open and must be
// resolved (Resolve) from the matching events' Span before it is run.
func (q Query) NeedsSpan() bool {
	return q.Interval > 0 && (q.Filter.From == nil || q.Filter.To == nil)
}

// Resolve closes an open histogram range on the matching events: an open
// from becomes the first event's time, an open to the instant after the
// last event. The set of matching events is unchanged. With no matching
// event the histogram is empty and its range is not used.
func (q Query) Resolve(sp audit.Span) Query {
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
func (q Query) CheckBuckets() error {
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
	return &audit.Error{Code: audit.EINVALID, Message: "too many histogram buckets", Fields: []audit.FieldError{{Field: "interval",
		Message: fmt.Sprintf("%s from %s to %s makes %d buckets; the limit is %d: %s",
			FormatInterval(q.Interval), audit.NewTimestamp(*q.Filter.From), audit.NewTimestamp(*q.Filter.To), n, MaxBuckets, hint)}}}
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
