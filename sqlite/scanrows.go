package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"math"
	"sort"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// orphanTextRows names each row of the text index that no event has
// (inserted behind the service): the index's per-document table
// (events_fts_docsize, one row per indexed row) against the events, an
// anti-join of two primary keys. Such a row is the store's, no tenant's:
// every tenant's verification names it.
func orphanTextRows(ctx context.Context, tx *sql.Tx) ([]vlog.IndexFinding, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM events_fts_docsize WHERE id NOT IN (SELECT seq FROM events) ORDER BY id LIMIT 1000`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	defer rows.Close()
	var out []vlog.IndexFinding
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
		}
		out = append(out, vlog.IndexFinding{Where: fmt.Sprintf("text index row %d", id),
			Detail: "a row of the text index that no event has (inserted behind the service, to make a free-text search find what is not there)"})
	}
	return out, rows.Err()
}

// orphanNumbers names each tenant number that rows of the events or of
// the log's leaves carry and that names no tenant (tenant_numbers edited
// behind the service): no tenant's reads, sealing or verification see
// such rows; the tenant whose number moved sees its log truncated (named
// by the tree's check). Like orphan text rows, they are the store's:
// every tenant's verification names them. Each distinct number is found
// by one seek of an index that starts with it.
func orphanNumbers(ctx context.Context, tx *sql.Tx) ([]vlog.IndexFinding, error) {
	var out []vlog.IndexFinding
	for _, table := range []string{"events", "tlog_leaves"} {
		next := int64(math.MinInt64)
		for range 10000 { // a bound: each number is a tenant
			var no sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT min(tenant_no) FROM `+table+` WHERE tenant_no > ?`, next).Scan(&no); err != nil {
				return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the tenant numbers check")
			}
			if !no.Valid {
				break
			}
			next = no.Int64
			var known int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tenant_numbers WHERE no = ?`, next).Scan(&known); err != nil {
				return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the tenant numbers check")
			}
			if known == 0 {
				out = append(out, vlog.IndexFinding{Where: fmt.Sprintf("%s of tenant number %d", table, next),
					Detail: "rows of a tenant number that names no tenant (the tenant numbers were edited behind the service): no tenant sees them"})
			}
		}
	}
	return out, nil
}

// ScanRows implements vlog.RowScanner: every row of the tenant's events,
// in the order they were written, each decoded on its own
// (vlog.DecodeStoredRow), so a malformed body is that row's Err and the
// reading goes on; a row whose index columns differ from what its body
// implies has them in Misindexed (indexColumns). Once every row is read,
// the tenant's hourly rollups (what the statistics read) are compared
// with the counts of the rows read, made by the same rollup.add the
// insert uses: a rollup edited behind the service is named; so, as a
// consequence, is the hour of an event edited, deleted or inserted behind
// it (named altered, missing or unsealed too).
func (s *Store) ScanRows(ctx context.Context, tenantID string, fn func([]vlog.StoredRow) error) ([]vlog.IndexFinding, error) {
	tx, done, err := s.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	text, err := newTextCheck(ctx, tx, tenantID)
	if err != nil {
		return nil, err
	}
	no, _, err := tenantNo(ctx, tx, tenantID)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+indexedRowColumns+` FROM events WHERE tenant_no = ? ORDER BY seq`, no)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	defer rows.Close()
	counts := rollup{}
	batch := make([]vlog.StoredRow, 0, scanBatch)
	r := newIndexedRow()
	for rows.Next() {
		row, err := r.scan(rows, tenantID)
		if err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
		}
		counts.addRow(&row, r.cols, tenantID)
		if row.Err == nil {
			row.Misindexed = misindexed(&row.Event, no, r.cols)
			err = text.add(ctx, r.seq, &row.Event)
		} else {
			err = text.add(ctx, r.seq, nil)
		}
		if err != nil {
			return nil, err
		}
		batch = append(batch, row)
		if len(batch) == scanBatch {
			if err := fn(batch); err != nil {
				return nil, err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	if len(batch) > 0 {
		if err := fn(batch); err != nil {
			return nil, err
		}
	}
	rows.Close()
	found, err := text.findings(ctx)
	if err != nil {
		return nil, err
	}
	orphans, err := orphanTextRows(ctx, tx)
	if err == nil {
		var numbers []vlog.IndexFinding
		numbers, err = orphanNumbers(ctx, tx)
		orphans = append(orphans, numbers...)
	}
	if err != nil || s.cfg.SkipRollup {
		return append(found, orphans...), err
	}
	found = append(found, orphans...)
	agg, err := checkRollups(ctx, tx, tenantID, counts)
	return append(found, agg...), err
}

// checkRollups compares the tenant's rows of both rollup tables with
// counted, and names each row (or each missing one) whose count differs.
func checkRollups(ctx context.Context, tx *sql.Tx, tenantID string, counted rollup) ([]vlog.IndexFinding, error) {
	stored := rollup{}
	rows, err := tx.QueryContext(ctx, `SELECT hour, `+dims+`, n FROM event_rollup WHERE tenant_id = ?`, tenantID)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollups")
	}
	for rows.Next() {
		k := rollupKey{tenant: tenantID}
		var n int64
		if err := rows.Scan(&k.hour, &k.action, &k.resourceType, &k.category, &k.outcome, &k.crossTenant, &n); err != nil {
			rows.Close()
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollups")
		}
		stored[k] = n
	}
	rows.Close()
	rows, err = tx.QueryContext(ctx, `SELECT actor_email_lc, hour, n FROM event_rollup_actor WHERE tenant_id = ?`, tenantID)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollups")
	}
	defer rows.Close()
	for rows.Next() {
		k := rollupKey{tenant: tenantID}
		var n int64
		if err := rows.Scan(&k.actor, &k.hour, &n); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollups")
		}
		stored[k] = n
	}
	if err := rows.Err(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollups")
	}
	return rollupFindings(stored, counted), nil
}

// rollupFindings names each key whose stored count is not the count of
// the events (a key absent from one side counts 0 there).
func rollupFindings(stored, counted rollup) []vlog.IndexFinding {
	keys := map[rollupKey]bool{}
	for _, m := range []rollup{stored, counted} {
		for k := range m {
			keys[k] = true
		}
	}
	var out []vlog.IndexFinding
	for k := range keys {
		if stored[k] != counted[k] {
			out = append(out, vlog.IndexFinding{Where: k.String(),
				Detail: fmt.Sprintf("the statistics' hourly count is %d, the stored events make %d", stored[k], counted[k])})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Where < out[j].Where })
	return out
}

// String names a rollup row: the hour and its dimensions.
func (k rollupKey) String() string {
	h := time.UnixMilli(k.hour).UTC().Format("2006-01-02T15Z")
	if k.actor != "" {
		return "rollup " + h + " actor " + k.actor
	}
	return fmt.Sprintf("rollup %s %s %s %s %s crossTenant=%d", h, k.action, k.resourceType, k.category, k.outcome, k.crossTenant)
}

// eventOfColumns is what a row's index columns say of its event: enough
// for rollup.add (indexColumns' order).
func eventOfColumns(cols []any, tenantID string) audit.Event {
	str := func(i int) string { return keyText(cols[i]) }
	num := func(i int) int64 { v, _ := cols[i].(int64); return v }
	return audit.Event{TenantID: tenantID, Timestamp: audit.NewTimestamp(time.UnixMilli(num(2))), Actor: audit.Actor{Email: str(4)},
		Action: audit.Action(str(5)), Resource: audit.Resource{Type: str(6)}, CrossTenant: num(8) != 0,
		Category: audit.Category(str(9)), Outcome: audit.Outcome(str(10))}
}

// snapshot begins the read transaction of ScanRows, and returns what ends
// it. One read transaction: the rows, the text index and the rollups are
// of one snapshot (WAL), whatever is written meanwhile. The text index
// check builds a temporary index of the tenant's rows: on disk, not in
// memory (the connections' temp_store), so a tenant of millions of events
// does not hold it in RAM.
func (s *Store) snapshot(ctx context.Context) (*sql.Tx, func(), error) {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA temp_store = FILE`); err != nil {
		conn.Close()
		return nil, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA temp_store = MEMORY`)
		conn.Close()
		return nil, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan rows")
	}
	return tx, func() {
		_ = tx.Rollback()
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA temp_store = MEMORY`)
		conn.Close()
	}, nil
}
