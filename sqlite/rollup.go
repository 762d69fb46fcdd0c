package sqlite

import (
	"context"
	"database/sql"
	"github.com/auditlog/auditlog/audit/vlog"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// The rollup tables (0006_event_rollup.sql): hourly counts per tenant
// and dims, and per tenant and actor e-mail.
const dims = "action, resource_type, category, outcome, cross_tenant"

// rollupKey is one row of event_rollup, or, with only tenant, actor and
// hour set, of event_rollup_actor.
type rollupKey struct {
	tenant, actor, action, resourceType, category, outcome string
	hour                                                   int64
	crossTenant                                            int
}

// rollup counts a batch's new events per row of both tables.
type rollup map[rollupKey]int64

func (r rollup) add(e *audit.Event) {
	k := rollupKey{tenant: e.TenantID, hour: floorHour(e.Timestamp.UnixMilli()), action: string(e.Action),
		resourceType: e.Resource.Type, category: string(e.Category), outcome: string(e.Outcome), crossTenant: boolInt(e.CrossTenant)}
	r[k]++
	r[rollupKey{tenant: k.tenant, hour: k.hour, actor: strings.ToLower(e.Actor.Email)}]++
}

// flush adds the counts to the tables in tx: one row per key, not per
// event (a trigger per event cost 40% of the ingest rate), in multi-row
// statements. What this costs the write rate is in BENCHMARKS.md.
func (r rollup) flush(ctx context.Context, tx *sql.Tx) error {
	var rows, actorRows [][]any
	for k, n := range r {
		if k.actor == "" {
			rows = append(rows, []any{k.tenant, k.hour, k.action, k.resourceType, k.category, k.outcome, k.crossTenant, n})
		} else {
			actorRows = append(actorRows, []any{k.tenant, k.actor, k.hour, n})
		}
	}
	if err := upsertCounts(ctx, tx, "event_rollup (tenant_id, hour, "+dims+", n)", rows); err != nil {
		return err
	}
	return upsertCounts(ctx, tx, "event_rollup_actor (tenant_id, actor_email_lc, hour, n)", actorRows)
}

// upsertCounts adds rows (their last column the count) into table, up
// to 100 rows a statement.
func upsertCounts(ctx context.Context, tx *sql.Tx, table string, rows [][]any) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), 100)]
		rows = rows[len(chunk):]
		marks := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(chunk[0])), ", ") + ")"
		args := make([]any, 0, len(chunk)*len(chunk[0]))
		for _, row := range chunk {
			args = append(args, row...)
		}
		q := "INSERT INTO " + table + " VALUES " + strings.TrimSuffix(strings.Repeat(marks+", ", len(chunk)), ", ") +
			" ON CONFLICT DO UPDATE SET n = n + excluded.n"
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollup")
		}
	}
	return nil
}

// unrollup subtracts from both tables, in tx, the events that
// `DELETE FROM events WHERE <cond>` is about to delete.
func unrollup(ctx context.Context, tx *sql.Tx, cond string, args []any) error {
	for _, t := range []struct{ table, key string }{
		{"event_rollup", "tenant_id, hour, " + dims},
		{"event_rollup_actor", "tenant_id, actor_email_lc, hour"},
	} {
		var match []string
		for _, c := range strings.Split(t.key, ", ") {
			match = append(match, "r."+c+" = d."+c)
		}
		// The events name their tenant by number (0021), the rollups by id.
		rest := strings.TrimPrefix(t.key, "tenant_id, ")
		_, err := tx.ExecContext(ctx, `UPDATE `+t.table+` AS r SET n = r.n - d.c FROM (
			SELECT (SELECT tenant_id FROM tenant_numbers WHERE no = events.tenant_no) AS tenant_id, `+
			strings.Replace(rest, "hour", "ts / 3600000 * 3600000 AS hour", 1)+`, count(*) AS c
			FROM events WHERE `+cond+` GROUP BY tenant_no, `+rest+`) AS d WHERE `+strings.Join(match, " AND "), args...)
		if err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollup")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t.table+` WHERE n <= 0`); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: rollup")
		}
	}
	return nil
}

// addRow counts a stored row as the insert counted it: from its event,
// or, for a row whose body is no event, from what its columns (cols, as
// indexedRow read them) say of it.
func (r rollup) addRow(row *vlog.StoredRow, cols []any, tenantID string) {
	if row.Err == nil {
		r.add(&row.Event)
		return
	}
	e := eventOfColumns(cols, tenantID)
	r.add(&e)
}
