package sqlite

import (
	"database/sql"
	"database/sql/driver"
	"testing"

	msqlite "modernc.org/sqlite"

	"github.com/auditlog/auditlog/audit"
)

// The test-only SQL function auditlog_test_full_json(body, id, actor_id,
// resource_id): the event of a row as the table keeps it now, as the JSON
// a body held before 0021 (every field), for AsOf0020.
func init() {
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_test_full_json", 4, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		k := keyedRow{body: argBytes(args[0]), id: args[1], actor: args[2], resource: args[3]}
		js, err := unpackBody(k.body)
		if err != nil {
			return k.body, nil
		}
		e, err := audit.DecodeStoredEvent(js)
		if err != nil {
			return k.body, nil
		}
		fill(&e, k.keys(e.TenantID))
		out, err := e.AppendStoredJSON(nil)
		if err != nil {
			return nil, err
		}
		return out, nil
	})
}

// asOf0020 is the schema of events and tlog_leaves as 0020 left them,
// and the statements that fill them from the tables of now.
var asOf0020 = []string{
	`CREATE TABLE events_old (
		seq INTEGER PRIMARY KEY, id TEXT NOT NULL, tenant_id TEXT NOT NULL, ts INTEGER NOT NULL, actor_id TEXT NOT NULL,
		actor_email_lc TEXT NOT NULL, action TEXT NOT NULL, resource_type TEXT NOT NULL, resource_id TEXT NOT NULL,
		cross_tenant INTEGER NOT NULL, category TEXT NOT NULL, outcome TEXT NOT NULL, body BLOB NOT NULL,
		actor_role TEXT NOT NULL DEFAULT '', actor_ip_key TEXT NOT NULL DEFAULT '', request_id TEXT NOT NULL DEFAULT '', accept BLOB,
		UNIQUE (tenant_id, id)) STRICT`,
	`INSERT INTO events_old SELECT e.seq, auditlog_id_of(e.id), n.tenant_id, e.ts, auditlog_uuid_of(e.actor_id), e.actor_email_lc, e.action,
		e.resource_type, auditlog_uuid_of(e.resource_id), e.cross_tenant, e.category, e.outcome,
		auditlog_test_full_json(e.body, e.id, e.actor_id, e.resource_id), e.actor_role, lower(hex(e.actor_ip_key)), e.request_id, e.accept
		FROM events e JOIN tenant_numbers n ON n.no = e.tenant_no`,
	`DROP TABLE events`,
	`ALTER TABLE events_old RENAME TO events`,
	`CREATE INDEX events_by_time     ON events (tenant_id, ts, id)`,
	`CREATE INDEX events_by_ip      ON events (tenant_id, actor_ip_key, ts)`,
	`CREATE INDEX events_by_action   ON events (tenant_id, action, ts, id)`,
	`CREATE INDEX events_by_rtype    ON events (tenant_id, resource_type, ts, id)`,
	`CREATE INDEX events_by_actor    ON events (tenant_id, actor_id, ts, id)`,
	`CREATE INDEX events_by_resource ON events (tenant_id, resource_id, ts, id)`,
	`CREATE INDEX events_by_email    ON events (tenant_id, actor_email_lc, id, ts)`,
	`CREATE INDEX events_cross_tenant ON events (tenant_id, ts, id) WHERE cross_tenant = 1`,
	`CREATE INDEX events_by_outcome  ON events (tenant_id, outcome, ts, id) WHERE outcome <> 'success'`,
	`CREATE INDEX events_by_request ON events (tenant_id, request_id COLLATE NOCASE)`,
	`CREATE TABLE tlog_leaves_old (tenant_id TEXT NOT NULL, leaf INTEGER NOT NULL, event_id TEXT NOT NULL, hash BLOB NOT NULL, digest BLOB,
		PRIMARY KEY (tenant_id, leaf)) STRICT, WITHOUT ROWID`,
	`INSERT INTO tlog_leaves_old SELECT n.tenant_id, l.leaf, auditlog_id_of(l.event_id),
		coalesce(l.hash, auditlog_entry_hash(auditlog_id_of(l.event_id), l.digest)), l.digest
		FROM tlog_leaves l JOIN tenant_numbers n ON n.no = l.tenant_no`,
	`DROP TABLE tlog_leaves`,
	`ALTER TABLE tlog_leaves_old RENAME TO tlog_leaves`,
	`CREATE UNIQUE INDEX tlog_leaves_by_event ON tlog_leaves (tenant_id, event_id)`,
	`DELETE FROM schema_migrations WHERE name = 'migrations/0021_narrow_rows.sql'`,
}

// AsOf0020 turns the events and the log's leaves of db back into the
// layout 0020 left them in (the ids as text, the tenant by id, every
// body whole and as JSON, as the bodies before compression were), and
// forgets 0021, which the next Open applies again: the upgrade of a store
// an earlier version wrote.
func AsOf0020(t testing.TB, db *sql.DB) {
	t.Helper()
	for _, q := range asOf0020 {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
}
