package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// A bounded walk reads a page of a filter with fewer matches than
// walkAbove by walking the index of the sort's order, checking each
// event, but no further than as many index entries as the filter has
// matches: where the walk finds the page within them, it read fewer rows
// than reading every match and sorting them would have (the matches of
// ip:198.0.0.0/8 on a tenant of 44,709 events, 3,506 of them: 15 ms
// read and sorted, 1 ms walked), and where it does not, it read at most
// as many as that and the page is read the usual way.
//
// It answers exactly: the walk covers every entry up to the bound (the
// entry as many places past the page's start as the filter has matches),
// and every event past the bound sorts after every event before it, so
// a full page found within the bound is the page; a walk that found the
// range ends before the bound covered all of it.
//
// There are no statistics to say where the walk will find its page: it
// is tried when a tenant's events hold the page's matches densely enough
// that, spread evenly, the first as many entries as there are matches
// hold two pages of them (m·m ≥ 2·page·n for m matches among the
// tenant's n events, n read as the size of the tenant's log: one probe
// of its last leaf, which counts retention's deletions too and so errs
// towards not walking). With one page's worth expected, a bare word on a
// tenant of 96,000 events (2,525 matches) walked its bound and found 49:
// matches are not spread evenly.

// walkFrom is the fewest matches worth a bounded walk: reading and
// sorting fewer costs less than a millisecond.
const walkFrom = 500

// walks are the sorts a bounded walk serves: the index in the sort's
// order and the columns of its position in that order.
var walks = map[audit.SortField]walk{
	audit.SortTimestamp:  {index: "events_by_time", cols: "ts", key: "ts", order: "ts %[1]s"},
	audit.SortActorEmail: {index: "events_by_email", cols: "actor_email_lc, id", key: "(actor_email_lc, id)", order: "actor_email_lc %[1]s, id %[1]s"},
}

// walk is an index a bounded walk reads: its name, the columns of a
// position in its order as selected (cols) and compared (key), and its
// ORDER BY (%[1]s the direction).
type walk struct{ index, cols, key, order string }

// walkPage reads q's page (from and size its OFFSET and LIMIT) by a
// bounded walk: ok false when none is worth trying or the walk did not
// find the page within its bound.
func (s *Store) walkPage(ctx context.Context, q audit.Query, total audit.Total, from, size int) (page []pageRow, cut, ok bool, err error) {
	w, served := walks[q.Sort.Field]
	m := total.Value
	if !served || total.Relation != audit.TotalExact || m < walkFrom || m > walkAbove || int64(from+size) > m {
		return nil, false, false, nil
	}
	if n := s.logSize(ctx, q.Filter.TenantID); m*m < 2*int64(from+size)*n {
		return nil, false, false, nil
	}
	f, bound, boundArgs, bounded, err := s.walkBound(ctx, q, w, m+int64(from))
	if err != nil {
		return nil, false, false, err
	}
	cond, args := where(f)
	after, afterArgs := afterCond(q)
	page, cut, err = s.readPage(ctx, q, `SELECT `+keyedBody+`, `+sortColumn[q.Sort.Field]+` FROM events INDEXED BY `+w.index+` WHERE `+cond+after+bound+
		pageOrder(q)+` LIMIT ? OFFSET ?`, append(append(append(args, afterArgs...), boundArgs...), size, from))
	if err != nil {
		return nil, false, false, err
	}
	return page, cut, cut || len(page) == size || !bounded, nil
}

// walkBound is where a walk of w in q's sort order stops, k entries past
// the page's start (the tenant's, within q's time bounds, after q's
// cursor): for a walk in time order q's filter with its time bounds
// narrowed to it (one range on the index: with two lower bounds on ts
// the planner takes one, and may walk to the other), else q's filter
// and a condition on w's key with its arguments. bounded is false, and
// the filter q's with no condition, where the walk ends before that.
func (s *Store) walkBound(ctx context.Context, q audit.Query, w walk, k int64) (f audit.Filter, bound string, args []any, bounded bool, err error) {
	f = q.Filter
	cond, args := where(audit.Filter{TenantID: f.TenantID, From: f.From, To: f.To})
	dir, cmp, past := "ASC", " >= ", " <= "
	if q.Sort.Desc {
		dir, cmp, past = "DESC", " <= ", " >= "
	}
	if a := q.After; a != nil {
		if q.Sort.Field == audit.SortTimestamp {
			cond, args = cond+" AND ts"+cmp+"?", append(args, a.Millis)
		} else {
			cond, args = cond+" AND "+w.key+cmp+"(?, ?)", append(args, a.Key, idKey(a.ID))
		}
	}
	var v, id any
	dest := []any{&v}
	if q.Sort.Field != audit.SortTimestamp {
		dest = append(dest, &id)
	}
	err = s.r.QueryRowContext(ctx, `SELECT `+w.cols+` FROM events INDEXED BY `+w.index+` WHERE `+cond+
		` ORDER BY `+fmt.Sprintf(w.order, dir)+` LIMIT 1 OFFSET ?`, append(args, k)...).Scan(dest...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return f, "", nil, false, nil
	case err != nil:
		return f, "", nil, false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: search")
	case q.Sort.Field == audit.SortTimestamp:
		t := time.UnixMilli(v.(int64))
		if q.Sort.Desc {
			f.From = &t // ts >= t
		} else {
			t = t.Add(time.Millisecond)
			f.To = &t // ts < t + 1 ms
		}
		return f, "", nil, true, nil
	default:
		return f, " AND " + w.key + past + "(?, ?)", []any{v, id}, true, nil
	}
}

// logSize is the size of the tenant's log, 0 when it has none or it
// cannot be read (a bounded walk is then tried: it costs at most as much
// again as the read it saves).
func (s *Store) logSize(ctx context.Context, tenant string) int64 {
	var n sql.NullInt64
	_ = s.r.QueryRowContext(ctx, `SELECT max(leaf) + 1 FROM tlog_leaves WHERE `+tenantIs, tenant).Scan(&n)
	return n.Int64
}
