-- Events: the columns the filters and sorts need, and the event itself as
-- JSON. Ids are the idempotency key: a second insert of an id is ignored
-- and reported as a duplicate.
CREATE TABLE events (
	seq            INTEGER PRIMARY KEY,
	id             TEXT    NOT NULL UNIQUE,
	tenant_id      TEXT    NOT NULL,
	ts             INTEGER NOT NULL, -- epoch milliseconds
	actor_id       TEXT    NOT NULL,
	actor_email_lc TEXT    NOT NULL, -- lowercased: filter and sort are case-insensitive
	action         TEXT    NOT NULL,
	resource_type  TEXT    NOT NULL,
	resource_id    TEXT    NOT NULL,
	cross_tenant   INTEGER NOT NULL,
	category       TEXT    NOT NULL,
	outcome        TEXT    NOT NULL,
	body           BLOB    NOT NULL  -- the event, JSON
) STRICT;

-- Every sort is (tenant, sort key, id); the id is the tiebreaker.
CREATE INDEX events_by_time     ON events (tenant_id, ts, id);
CREATE INDEX events_by_email    ON events (tenant_id, actor_email_lc, id);
CREATE INDEX events_by_action   ON events (tenant_id, action, id);
CREATE INDEX events_by_rtype    ON events (tenant_id, resource_type, id);
CREATE INDEX events_by_actor    ON events (tenant_id, actor_id, ts);
CREATE INDEX events_by_resource ON events (tenant_id, resource_id, ts);

-- Free text (q): the actor's e-mail, the user agent, the resource id and
-- the changed field names, tokenized like Elasticsearch's standard
-- analyzer would for these values. Contentless: rowid = events.seq.
CREATE VIRTUAL TABLE events_fts USING fts5(search, content='', contentless_delete=1, tokenize="unicode61 tokenchars '_'");

-- The tenant directory: tenant -> plan.
CREATE TABLE tenants (
	tenant_id  TEXT PRIMARY KEY,
	plan       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;
