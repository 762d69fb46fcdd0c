package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Purge deletes, tenant by tenant, every event older than the retention
// of the plan in force as the tenant's log records it (retention.PlanInForce:
// its latest plan change record the service accepted, else the default
// plan), never as the tenants table says: a plan edited in the database
// deletes nothing, and the table is put back (Restored). An event is
// deleted only when the event itself (its body, not its ts column) is
// past the cut-off and it is the one the service accepted (its tag
// verifies, or for a row stored before tags its leaf is its own): an
// event back-dated or rewritten behind the service is kept, and named
// (Kept), for it is evidence.
func (s *Store) Purge(ctx context.Context) (retention.Pass, error) {
	var pass retention.Pass
	tenants, err := s.purgeTenants(ctx)
	if err != nil {
		return pass, err
	}
	now := s.cfg.Now()
	var errs []error
	for _, t := range tenants {
		if err := s.purgeTenant(ctx, t, now, &pass); err != nil {
			errs = append(errs, err)
		}
	}
	return pass, errors.Join(errs...)
}

// purgeTenants lists every tenant with events or in the directory.
func (s *Store) purgeTenants(ctx context.Context) ([]string, error) {
	// Every tenant with events has a number (0020).
	rows, err := s.r.QueryContext(ctx, `SELECT tenant_id FROM tenant_numbers UNION SELECT tenant_id FROM tenants`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// purgeTenant is one tenant's part of a purge, in one transaction: the
// plan its log records, the directory put back to it, the events to
// delete checked one by one, their deletion, their text index rows and
// rollup counts, and the retention record (retention.Deletion: the
// leaves that held them).
func (s *Store) purgeTenant(ctx context.Context, tenant string, now time.Time, pass *retention.Pass) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: begin")
	}
	defer tx.Rollback()
	plan, err := s.loggedPlan(ctx, tx, tenant)
	if err != nil {
		return err
	}
	if err := s.restorePlan(ctx, tx, tenant, plan, pass); err != nil {
		return err
	}
	cutoff := audit.Cutoff(plan, now)
	held, holds, err := s.heldSeqs(ctx, tx, tenant, cutoff, now)
	if err != nil {
		return err
	}
	n, inherited, err := s.markExpired(ctx, tx, tenant, cutoff, held, pass)
	if err != nil || n == 0 {
		if err == nil {
			err = tx.Commit()
		}
		return err
	}
	const cond = `seq IN (SELECT seq FROM temp.purge_seq)`
	deletions, err := retentionDeletions(ctx, tx, plan, cutoff, cond, nil)
	if err != nil {
		return err
	}
	var records []audit.Event
	for _, d := range deletions {
		d.Leaves = retention.MergeRanges(append(d.Leaves, inherited...))
		d.Holds = holds
		records = append(records, d.Records(now)...)
	}
	if err := unrollup(ctx, tx, cond, nil); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM events_fts WHERE rowid IN (SELECT seq FROM temp.purge_seq)`); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM events WHERE `+cond)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	deleted, _ := res.RowsAffected()
	bodies, err := s.packBodies(records)
	if err != nil {
		return err
	}
	if _, err := s.insertEvents(ctx, tx, records, bodies); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: commit")
	}
	pass.Deleted += deleted
	return nil
}

// storedRow is one events row with its tag and its leaf hash (nil: in no
// leaf), as the purge reads it.
type storedRow struct {
	seq  int64
	row  vlog.StoredRow
	leaf *tlog.Hash
}

// tenantRows reads the tenant's rows of where (on events e), each with
// its tag and leaf hash.
func tenantRows(ctx context.Context, tx *sql.Tx, tenant, where string, args ...any) ([]storedRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT e.seq, e.body, e.id, e.actor_id, e.resource_id, e.accept, l.hash, l.digest FROM events e
		LEFT JOIN tlog_leaves l ON l.tenant_no = e.tenant_no AND l.event_id = e.id
		WHERE e.`+tenantIs+` AND `+where+` ORDER BY e.seq`, append([]any{tenant}, args...)...)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	defer rows.Close()
	var out []storedRow
	for rows.Next() {
		var r storedRow
		var k keyedRow
		var tag, leaf, digest []byte
		if err := rows.Scan(append(append([]any{&r.seq}, k.dest()...), &tag, &leaf, &digest)...); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
		}
		r.row = k.decode(tenant)
		r.row.Tag = tag
		if h, ok := leafHash(r.row.Key, leaf, digest); ok {
			r.leaf = &h
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// loggedPlan is the plan in force as the tenant's log records it
// (retention.PlanInForce): its plan change and retention records that are the
// service's own, in the order it accepted them, else the default.
func (s *Store) loggedPlan(ctx context.Context, tx *sql.Tx, tenant string) (audit.Plan, error) {
	rows, err := tenantRows(ctx, tx, tenant, `e.resource_type IN (?, ?) AND e.actor_id = ?`, audit.ResourceTenantPlan, audit.ResourceLogRetention,
		uuidKey(strings.ToLower(audit.SystemActor.ID)))
	if err != nil {
		return "", err
	}
	var records []audit.Event
	for _, r := range rows {
		if r.row.Err == nil && s.cfg.Accept.Authentic(&r.row.Event, r.row.Tag, r.leaf) == nil {
			records = append(records, r.row.Event)
		}
	}
	return retention.PlanInForce(records, s.cfg.DefaultPlan), nil
}

// restorePlan puts the log's plan back into the directory when its row
// says otherwise (or is missing while the tenant has events).
func (s *Store) restorePlan(ctx context.Context, tx *sql.Tx, tenant string, plan audit.Plan, pass *retention.Pass) error {
	var dir string
	err := tx.QueryRowContext(ctx, `SELECT plan FROM tenants WHERE tenant_id = ?`, tenant).Scan(&dir)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant")
	case audit.Plan(dir) == plan:
		return nil
	}
	now := s.cfg.Now().UnixMilli()
	if _, err := tx.ExecContext(ctx, `INSERT INTO tenants (tenant_id, plan, created_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id) DO UPDATE SET plan = excluded.plan, updated_at = excluded.updated_at`, tenant, plan, now, now); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: restoring the plan of %s", tenant)
	}
	if dir != "" {
		pass.Restored = append(pass.Restored, retention.PlanRestored{TenantID: tenant, Directory: audit.Plan(dir), Logged: plan})
	}
	return nil
}

// markExpired fills temp.purge_seq with the tenant's events to delete:
// those whose ts column is before cutoff, whose body says so too, that no
// legal hold keeps (held) and that are as the service accepted them; any
// other is kept, and named unless a hold keeps it. It
// returns how many, and the leaf ranges the retention records among them
// excused (inherited: the new record carries them forward).
func (s *Store) markExpired(ctx context.Context, tx *sql.Tx, tenant string, cutoff time.Time, held map[int64]bool, pass *retention.Pass) (int, []retention.LeafRange, error) {
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS purge_seq (seq INTEGER PRIMARY KEY)`); err != nil {
		return 0, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM temp.purge_seq`); err != nil {
		return 0, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	rows, err := tenantRows(ctx, tx, tenant, `e.ts < ?`, cutoff.UnixMilli())
	if err != nil || len(rows) == 0 {
		return 0, nil, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO temp.purge_seq (seq) VALUES (?)`)
	if err != nil {
		return 0, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
	}
	n := 0
	var inherited []retention.LeafRange
	for _, r := range rows {
		if held[r.seq] {
			pass.Held++
			continue
		}
		reason := ""
		switch e := &r.row.Event; {
		case r.row.Err != nil:
			reason = "the stored row is no event: " + audit.ErrorMessage(r.row.Err)
		case !e.Timestamp.Before(cutoff):
			reason = "its ts column says it expired, its body (" + e.Timestamp.Format(audit.TimestampLayout) + ") does not"
		default:
			if err := s.cfg.Accept.Authentic(e, r.row.Tag, r.leaf); err != nil {
				reason = audit.ErrorMessage(err)
			}
		}
		if reason != "" {
			pass.Kept = append(pass.Kept, retention.Kept{TenantID: tenant, EventID: r.row.Key, Reason: reason})
			continue
		}
		if _, err := ins.ExecContext(ctx, r.seq); err != nil {
			return 0, nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: purge")
		}
		if ranges, ok := retention.Leaves(r.row.Event); ok {
			inherited = append(inherited, ranges...)
		}
		n++
	}
	return n, inherited, nil
}

// PurgeLoop runs Purge every interval until ctx ends.
func (s *Store) PurgeLoop(ctx context.Context, interval time.Duration, onPass func(retention.Pass, error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		pass, err := s.Purge(ctx)
		if onPass != nil {
			onPass(pass, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
