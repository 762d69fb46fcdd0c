package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
)

// heldSeqs returns the rows of tenant before cutoff that a legal hold in
// force at now keeps, and those holds' ids (for the retention record,
// issue 55): the matches of each hold's scope, by the
// list's own SQL (where), and the hold's own records while it holds. The
// holds are read from the tenant's log inside the purge's transaction (its
// records the service accepted, folded in the order it accepted them), so
// a hold committed before the purge began is honoured by it, and a row of
// the store cannot lift one. A scope this build cannot read holds every
// event of the tenant: the purge never deletes on doubt.
func (s *Store) heldSeqs(ctx context.Context, tx *sql.Tx, tenant string, cutoff, now time.Time) (map[int64]bool, []string, error) {
	rows, err := tenantRows(ctx, tx, tenant, `e.resource_type = ?`, hold.ResourceType)
	if err != nil || len(rows) == 0 {
		return nil, nil, err
	}
	var records []audit.Event
	for _, r := range rows {
		if r.row.Err == nil && s.cfg.Accept.Authentic(&r.row.Event, r.row.Tag, r.leaf) == nil {
			records = append(records, r.row.Event)
		}
	}
	holds := hold.InForce(hold.Fold(records), now)
	if len(holds) == 0 {
		return nil, nil, nil
	}
	held := map[int64]bool{}
	collect := func(query string, args ...any) error {
		rs, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading what legal holds keep")
		}
		defer rs.Close()
		for rs.Next() {
			var seq int64
			if err := rs.Scan(&seq); err != nil {
				return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading what legal holds keep")
			}
			held[seq] = true
		}
		return rs.Err()
	}
	own := []any{tenant, hold.ResourceType} // the holds' own records
	for _, id := range hold.IDs(holds) {
		own = append(own, uuidKey(strings.ToLower(id)))
	}
	for _, h := range holds {
		f, err := h.Scope.Filter(tenant)
		if err != nil {
			f = audit.Filter{TenantID: tenant}
		}
		if f.To == nil || f.To.After(cutoff) {
			f.To = &cutoff
		}
		cond, args := where(f)
		if err := collect(`SELECT seq FROM events WHERE `+cond, args...); err != nil {
			return nil, nil, err
		}
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(holds)), ",")
	err = collect(`SELECT seq FROM events WHERE `+tenantIs+` AND resource_type = ? AND resource_id IN (`+marks+`)`, own...)
	return held, hold.IDs(holds), err
}
