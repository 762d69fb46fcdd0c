package sqlite

import (
	"context"

	"github.com/auditlog/auditlog/audit"
)

// The planner has no statistics (an ANALYZE made other plans worse: the
// filtered, sorted page went from under 50 ms to 296 ms at 1M events),
// so it cannot tell two index ranges apart: for actor:an* ip:198.0.0.0/8
// it scanned the wide ip range (542 ms at 1M events) where the narrow
// actor prefix answers in 2 ms. When a query has more than one search
// term an index serves, indexHint counts each term's rows in its index,
// at most hintProbe of them, and names the index of the narrowest for the
// query (INDEXED BY). Each probe reads at most hintProbe index entries.
const hintProbe = 2000

// termIndexes are the indexes that serve a search term's column, after
// the tenant.
var termIndexes = map[audit.SearchField]string{
	audit.SearchActor: "events_by_email", audit.SearchIP: "events_by_ip", audit.SearchActorID: "events_by_actor",
	audit.SearchResource: "events_by_resource", audit.SearchRequest: "events_by_request",
}

// indexHint is " INDEXED BY <index>" for f, or "" to let the planner
// choose.
func (s *Store) indexHint(ctx context.Context, f audit.Filter) string {
	var candidates []audit.Term
	for _, t := range f.Terms {
		if _, ok := termIndexes[t.Field]; ok && !t.Negate {
			candidates = append(candidates, t)
		}
	}
	if len(candidates) < 2 {
		return ""
	}
	best, least := "", int64(hintProbe)
	for _, t := range candidates {
		cond, args := termCond(f.TenantID, t)
		var n int64
		err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM events INDEXED BY `+termIndexes[t.Field]+
			` WHERE `+tenantIs+` AND `+cond+` LIMIT ?)`, append(append([]any{f.TenantID}, args...), hintProbe)...).Scan(&n)
		if err == nil && n < least {
			best, least = termIndexes[t.Field], n
		}
	}
	if best == "" {
		return ""
	}
	return " INDEXED BY " + best
}
