package sqlite

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
)

// scanBatch is how many events ScanEvents hands over at a time.
const scanBatch = 1000

// CountEvents implements audit.EventScanner.
func (s *Store) CountEvents(ctx context.Context, f audit.Filter) (int64, error) {
	cond, args := where(f)
	var n int64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE `+cond, args...).Scan(&n); err != nil {
		return 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: count")
	}
	return n, nil
}

// ScanEvents implements audit.EventScanner with one streaming statement:
// a statement reads one snapshot of a WAL database, and ids are unique,
// so each event comes once.
func (s *Store) ScanEvents(ctx context.Context, f audit.Filter, so audit.Sort, fn func([]audit.Event) error) error {
	cond, args := where(f)
	col, dir := sortColumn[so.Field], "ASC"
	if so.Desc {
		dir = "DESC"
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+keyedBody+` FROM events WHERE `+cond+` ORDER BY `+col+` `+dir+`, id `+dir, args...)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan")
	}
	defer rows.Close()
	batch := make([]audit.Event, 0, scanBatch)
	var unreadable []audit.UnreadableEvent
	var k keyedRow
	for rows.Next() {
		if err := rows.Scan(k.dest()...); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan")
		}
		row := k.decode(f.TenantID)
		if row.Err != nil {
			// No event of the tenant under its own id: every readable
			// one is delivered, then the scan names these.
			unreadable = append(unreadable, audit.UnreadableEvent{ID: row.Key, Reason: audit.ErrorMessage(row.Err)})
			continue
		}
		batch = append(batch, row.Event)
		if len(batch) == scanBatch {
			if err := fn(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: scan")
	}
	if len(batch) > 0 {
		if err := fn(batch); err != nil {
			return err
		}
	}
	if len(unreadable) > 0 {
		return audit.UnreadableError(unreadable)
	}
	return nil
}

func millisOrNil(j *exportjob.Job) any {
	if j.ExpiresAt == nil {
		return nil
	}
	return j.ExpiresAt.UnixMilli()
}

// CreateExportJob implements exportjob.Store.
func (s *Store) CreateExportJob(ctx context.Context, j *exportjob.Job, maxActive int) error {
	body, err := json.Marshal(j)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding export job")
	}
	// One statement counts the tenant's active jobs and inserts: SQLite
	// runs it as one write transaction, so two creations cannot both see
	// room for one more.
	tenant := j.TenantID
	res, err := s.w.ExecContext(ctx, `INSERT INTO export_jobs (id, tenant_id, owner_id, state, created_at, expires_at, rev, body)
		SELECT ?, ?, ?, ?, ?, ?, 1, ?
		WHERE (SELECT COUNT(*) FROM export_jobs WHERE tenant_id = ? AND state IN ('queued', 'running')) < ?`,
		j.ID, tenant, j.Owner.UserID, string(j.State), j.CreatedAt.UnixMilli(), millisOrNil(j), body, tenant, maxActive)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint") || strings.Contains(err.Error(), "PRIMARY KEY") {
			return audit.Errorf(audit.ECONFLICT, "export job %s exists", j.ID)
		}
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: creating export job")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return exportjob.TooManyExports(maxActive)
	}
	j.Rev = "1"
	return nil
}

func setJobRev(j *exportjob.Job, rev string) { j.Rev = rev }

func scanJob(row scanner) (exportjob.Job, error) {
	return scanRevisioned(row, setJobRev, "export job")
}

// ExportJob implements exportjob.Store.
func (s *Store) ExportJob(ctx context.Context, tenantID, id string) (exportjob.Job, error) {
	j, found, err := getRevisioned(ctx, s, setJobRev, "export job "+id,
		`SELECT body, rev FROM export_jobs WHERE tenant_id = ? AND id = ?`, tenantID, id)
	if err == nil && !found {
		err = audit.Errorf(audit.ENOTFOUND, "no export job %s", id)
	}
	return j, err
}

// FindExportJobs implements exportjob.Store.
func (s *Store) FindExportJobs(ctx context.Context, q exportjob.Query) ([]exportjob.Job, error) {
	conds, args := []string{"1"}, []any{}
	if q.TenantID != "" {
		conds, args = append(conds, "tenant_id = ?"), append(args, q.TenantID)
	}
	if q.OwnerID != "" {
		conds, args = append(conds, "owner_id = ?"), append(args, q.OwnerID)
	}
	if len(q.States) > 0 {
		conds = append(conds, "state IN ("+strings.TrimSuffix(strings.Repeat("?,", len(q.States)), ",")+")")
		for _, st := range q.States {
			args = append(args, string(st))
		}
	}
	if !q.ExpiresBefore.IsZero() {
		conds, args = append(conds, "expires_at < ?"), append(args, q.ExpiresBefore.UnixMilli())
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	order := "created_at, id"
	if q.NewestFirst {
		order = "created_at DESC, id DESC"
	}
	rows, err := s.r.QueryContext(ctx, `SELECT body, rev FROM export_jobs WHERE `+strings.Join(conds, " AND ")+` ORDER BY `+order+` LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: finding export jobs")
	}
	return scanAll(rows, scanJob, "finding export jobs")
}

// UpdateExportJob implements exportjob.Store.
func (s *Store) UpdateExportJob(ctx context.Context, j *exportjob.Job) error {
	body, err := json.Marshal(j)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding export job")
	}
	rev, err := s.updateIfUnchanged(ctx, `UPDATE export_jobs SET state = ?, expires_at = ?, rev = rev + 1, body = ? WHERE id = ? AND tenant_id = ? AND rev = ?`,
		[]any{string(j.State), millisOrNil(j), body, j.ID, j.TenantID}, j.Rev, "export job "+j.ID,
		func() error { _, err := s.ExportJob(ctx, j.TenantID, j.ID); return err })
	if err != nil {
		return err
	}
	j.Rev = rev
	return nil
}
