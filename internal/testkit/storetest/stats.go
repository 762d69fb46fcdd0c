package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
)

// statsWindows are date ranges laid across hour boundaries in every way
// a store that reads whole hours from a rollup could get wrong: aligned,
// ragged at both ends, inside one hour, across one boundary without a
// whole hour, open at either end.
func statsWindows() [][2]*time.Time {
	at := func(s string) *time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return &t
	}
	return [][2]*time.Time{
		{nil, nil},
		{at("2026-10-10T00:00:00Z"), at("2026-10-20T00:00:00Z")},
		{at("2026-10-10T00:17:31.123Z"), at("2026-10-20T13:42:00.5Z")},
		{at("2026-10-15T12:00:00Z"), at("2026-10-15T12:00:00.001Z")},
		{at("2026-10-15T11:30:00Z"), at("2026-10-15T12:30:00Z")},
		{at("2026-10-12T06:59:59.999Z"), nil},
		{nil, at("2026-10-25T18:00:00.001Z")},
		// NewDataset puts one event in fifty at 2026-10-15T12:00:00Z.
		{nil, at("2026-10-15T12:00:00.5Z")},
		{at("2026-10-15T12:00:00Z"), at("2026-10-15T13:00:00.5Z")},
	}
}

// testStatsMatchTheEvents: for every filter case, window, grouping and
// bucket width, EventStats equals counts made here from the events.
func testStatsMatchTheEvents(t *testing.T, b Backend) {
	d := NewDataset(3000)
	Write(t, b.Writer, d.All)
	b.Visible(t)
	groupings := []stats.GroupField{"", stats.GroupAction, stats.GroupOutcome, stats.GroupResourceType, stats.GroupCategory, stats.GroupActorEmail}
	intervals := []time.Duration{0, time.Hour, 3 * time.Hour, 30 * time.Minute, 24 * time.Hour, 7 * 24 * time.Hour}
	n := 0
	for _, c := range Cases() {
		windows := statsWindows()
		if f := c.Filter(d); f.From != nil || f.To != nil {
			windows = [][2]*time.Time{{f.From, f.To}} // the case's own
		}
		for _, w := range windows {
			n++
			q := stats.Query{GroupBy: groupings[n%len(groupings)], Interval: intervals[n%len(intervals)], MaxGroups: 100}
			q.Filter = c.Filter(d)
			q.Filter.TenantID, q.Filter.From, q.Filter.To = d.A, w[0], w[1]
			q.Filter.Normalize()
			keep := func(e *audit.Event) bool {
				return c.Keep(d, e) && (w[0] == nil || !e.Timestamp.Before(*w[0])) && (w[1] == nil || e.Timestamp.Before(*w[1]))
			}
			got, err := b.Reader.EventStats(context.Background(), q)
			if err != nil {
				t.Fatalf("%s %v: %v", c.Name, w, err)
			}
			want := expectedStats(d.Events, keep, q)
			if g, x := statsLines(got), statsLines(want); !slices.Equal(g, x) {
				i := firstDiff(g, x)
				t.Fatalf("%s, window %v, %+v: line %d is %q, want %q", c.Name, w, q, i, at(g, i), at(x, i))
			}
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// expectedStats counts events in Go: groups by count descending then
// key, buckets aligned on the epoch, zero-filled over [from, to) when
// both are given, else from the first to the last non-empty bucket.
func expectedStats(events []audit.Event, keep func(*audit.Event) bool, q stats.Query) stats.Stats {
	var st stats.Stats
	key := func(e *audit.Event) string {
		switch q.GroupBy {
		case stats.GroupAction:
			return string(e.Action)
		case stats.GroupOutcome:
			return string(e.Outcome)
		case stats.GroupResourceType:
			return e.Resource.Type
		case stats.GroupCategory:
			return string(e.Category)
		case stats.GroupActorEmail:
			return strings.ToLower(e.Actor.Email)
		}
		return ""
	}
	groups := map[string]int64{}
	iv := q.Interval.Milliseconds()
	perBucket := map[int64]map[string]int64{}
	lo, hi := int64(-1), int64(-1)
	for i := range events {
		e := &events[i]
		if !keep(e) {
			continue
		}
		st.Total++
		groups[key(e)]++
		if iv > 0 {
			b := e.Timestamp.UnixMilli() / iv * iv
			if perBucket[b] == nil {
				perBucket[b] = map[string]int64{}
			}
			perBucket[b][key(e)]++
			if lo < 0 || b < lo {
				lo = b
			}
			hi = max(hi, b)
		}
	}
	if q.GroupBy != "" {
		st.Groups = sortedGroups(groups)
	}
	if iv > 0 && q.Filter.From != nil && q.Filter.To != nil {
		lo, hi = q.Filter.From.UnixMilli()/iv*iv, (q.Filter.To.UnixMilli()-1)/iv*iv
	}
	for b := lo; iv > 0 && lo >= 0 && b <= hi; b += iv {
		bk := stats.Bucket{Start: audit.NewTimestamp(time.UnixMilli(b)), Count: 0}
		for _, c := range perBucket[b] {
			bk.Count += c
		}
		if q.GroupBy != "" {
			bk.Groups = sortedGroups(perBucket[b])
		}
		st.Histogram = append(st.Histogram, bk)
	}
	return st
}

func sortedGroups(m map[string]int64) []stats.Group {
	var out []stats.Group
	for k, c := range m {
		out = append(out, stats.Group{Key: k, Count: c})
	}
	slices.SortFunc(out, func(a, b stats.Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Key, b.Key))
	})
	return out
}

// statsLines writes st one line per total, group and bucket, so two
// answers compare line by line.
func statsLines(st stats.Stats) []string {
	out := []string{fmt.Sprintf("total %d", st.Total)}
	for _, g := range st.Groups {
		out = append(out, fmt.Sprintf("group %s %d", g.Key, g.Count))
	}
	for _, b := range st.Histogram {
		line := fmt.Sprintf("bucket %s %d", b.Start.UTC().Format(time.RFC3339), b.Count)
		for _, g := range b.Groups {
			line += fmt.Sprintf(" %s:%d", g.Key, g.Count)
		}
		out = append(out, line)
	}
	return out
}
