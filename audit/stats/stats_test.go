package stats_test

import (
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
)

func TestStatsWindowIsBounded(t *testing.T) {
	at := func(s string) *time.Time {
		ts, err := audit.ParseTimestamp(s)
		if err != nil {
			t.Fatal(err)
		}
		return &ts.Time
	}
	years := audit.Span{First: *at("2019-03-04T05:06:07.000Z"), Last: *at("2026-11-21T09:30:12.345Z"), Any: true}
	for _, tc := range []struct {
		name     string
		q        stats.Query
		sp       audit.Span
		ok       bool
		mentions string
	}{
		{"open range, 1m over years", stats.Query{Interval: time.Minute}, years, false, "at least 2d,"},
		{"open from, 1h over years", stats.Query{Interval: time.Hour, Filter: audit.Filter{To: at("2026-11-22T00:00:00Z")}}, years, false, "from 2019-03-04T05:06:07.000Z"},
		{"open to, 1d since 2026", stats.Query{Interval: 24 * time.Hour, Filter: audit.Filter{From: at("2026-01-01T00:00:00Z")}}, years, true, ""},
		{"open range, 2d over years", stats.Query{Interval: 48 * time.Hour}, years, true, ""},
		{"closed, exactly 2000 buckets", stats.Query{Interval: time.Minute, Filter: audit.Filter{From: at("2026-11-01T00:00:00Z"), To: at("2026-11-02T09:20:00Z")}}, years, true, ""},
		{"closed, 2001 buckets", stats.Query{Interval: time.Minute, Filter: audit.Filter{From: at("2026-11-01T00:00:00Z"), To: at("2026-11-02T09:20:00.001Z")}}, years, false, "2001 buckets"},
		{"closed, unaligned 2000 minutes span 2001 buckets", stats.Query{Interval: time.Minute, Filter: audit.Filter{From: at("2026-11-01T00:00:30Z"), To: at("2026-11-02T09:20:30Z")}}, years, false, "2001 buckets"},
		{"closed, unaligned start ending on a bucket", stats.Query{Interval: time.Minute, Filter: audit.Filter{From: at("2026-11-01T00:00:30Z"), To: at("2026-11-02T09:20:00Z")}}, years, true, ""},
		{"7d buckets align on the epoch", stats.Query{Interval: 7 * 24 * time.Hour, Filter: audit.Filter{From: at("1990-01-01T00:00:00Z"), To: at("2026-11-22T00:00:00Z")}}, years, true, ""},
		{"no events, open range", stats.Query{Interval: time.Minute}, audit.Span{}, true, ""},
		{"no interval", stats.Query{GroupBy: stats.GroupAction}, years, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q.Resolve(tc.sp)
			if tc.q.NeedsSpan() && tc.sp.Any && (q.Filter.From == nil || q.Filter.To == nil) {
				t.Fatalf("an open range must be closed on the span: %+v", q.Filter)
			}
			err := q.CheckBuckets()
			if tc.ok != (err == nil) {
				t.Fatalf("CheckBuckets: %v, want ok=%v", err, tc.ok)
			}
			if err != nil {
				fs := audit.ErrorFields(err)
				if audit.ErrorCode(err) != audit.EINVALID || len(fs) != 1 || fs[0].Field != "interval" || !strings.Contains(fs[0].Message, tc.mentions) {
					t.Fatalf("error %v %+v must name interval and mention %q", err, fs, tc.mentions)
				}
			}
		})
	}
	// Resolve keeps the matching set: from is the first event, to just after the last.
	q := stats.Query{Interval: time.Hour}.Resolve(years)
	if !q.Filter.From.Equal(years.First) || !q.Filter.To.Equal(years.Last.Add(time.Millisecond)) {
		t.Fatalf("resolved to %v – %v", q.Filter.From, q.Filter.To)
	}
}

func TestFreeTextIsBounded(t *testing.T) {
	for q, ok := range map[string]bool{
		"alice":                               true,
		"ad*":                                 true,
		"é1*":                                 true,
		"ad* co* ex* ag* ss* ht* re* qu*":     true,
		"a*":                                  false,
		"*":                                   false,
		"-*":                                  false,
		"é*":                                  false,
		"ad* co* ex* ag* ss* ht* re* qu* zz*": false, // MaxQPrefixes
		strings.Repeat("a ", 17):              false, // MaxQTerms
		strings.Repeat("x", 513):              false,
	} {
		_, _, err := search.Parse(q)
		if ok != (err == nil) {
			t.Errorf("%q: %v, want ok=%v", q, err, ok)
			continue
		}
		if err != nil {
			if fs := audit.ErrorFields(err); audit.ErrorCode(err) != audit.EINVALID || len(fs) == 0 || fs[0].Field != "q" {
				t.Errorf("%q: %v must name q", q, err)
			}
		}
	}
}
