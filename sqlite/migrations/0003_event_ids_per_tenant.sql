-- Event ids are the idempotency key within their tenant, not across
-- tenants: two tenants may store the same id (as in Elasticsearch, where
-- each tenant has its own data streams). The table is rebuilt because
-- SQLite cannot drop a column's UNIQUE constraint; seq values are kept,
-- so the text index (rowid = seq) stays valid.
CREATE TABLE events_v3 (
	seq            INTEGER PRIMARY KEY,
	id             TEXT    NOT NULL,
	tenant_id      TEXT    NOT NULL,
	ts             INTEGER NOT NULL,
	actor_id       TEXT    NOT NULL,
	actor_email_lc TEXT    NOT NULL,
	action         TEXT    NOT NULL,
	resource_type  TEXT    NOT NULL,
	resource_id    TEXT    NOT NULL,
	cross_tenant   INTEGER NOT NULL,
	category       TEXT    NOT NULL,
	outcome        TEXT    NOT NULL,
	body           BLOB    NOT NULL,
	UNIQUE (tenant_id, id)
) STRICT;
INSERT INTO events_v3 SELECT seq, id, tenant_id, ts, actor_id, actor_email_lc, action, resource_type, resource_id,
	cross_tenant, category, outcome, body FROM events;
DROP TABLE events;
ALTER TABLE events_v3 RENAME TO events;

CREATE INDEX events_by_time     ON events (tenant_id, ts, id);
CREATE INDEX events_by_email    ON events (tenant_id, actor_email_lc, id);
CREATE INDEX events_by_action   ON events (tenant_id, action, id);
CREATE INDEX events_by_rtype    ON events (tenant_id, resource_type, id);
CREATE INDEX events_by_actor    ON events (tenant_id, actor_id, ts);
CREATE INDEX events_by_resource ON events (tenant_id, resource_id, ts);
