-- Narrow rows (issue 58: 2.1 KB an event, where the target is 1 KB with
-- every index and the tree). The events table and the log's leaves are
-- rebuilt, seq values kept (the text index's rowid is seq):
-- - the tenant is its number (tenant_numbers, 0020) instead of its id:
--   36 bytes less in the row, in each of the nine indexes and in the
--   leaves' two keys;
-- - the event id, the actor id and the resource id are keys (sqlite/
--   idkeys.go): a canonical UUID as its 16 bytes in a column of type ANY,
--   anything else as its text; the actor's address is its 16 bytes
--   instead of 32 hexadecimal digits;
-- - the indexes that ended in (ts, id) end in ts: the rowid each index
--   entry carries leads to the row, and a page's order among events of the
--   same millisecond is sorted from the rows (SQLite sorts the right part
--   of the ORDER BY per ts);
-- - the body leaves out the event id and the actor's and
--   resource's ids when the columns hold them as they are (body.go,
--   elide): a reader fills them from the columns. Every body that decodes
--   is rewritten so, compressed; one that does not stays as it is;
-- - a leaf of the entry format keeps no hash: it is the hash of the
--   entry its id and digest make (the tree's hashes keep it as well).
-- About a minute per million events.
INSERT INTO tenant_numbers (tenant_id) SELECT DISTINCT tenant_id FROM events WHERE true ON CONFLICT DO NOTHING;
INSERT INTO tenant_numbers (tenant_id) SELECT DISTINCT tenant_id FROM tlog_leaves WHERE true ON CONFLICT DO NOTHING;

CREATE TABLE events_v21 (
	seq            INTEGER PRIMARY KEY,
	id             ANY     NOT NULL, -- idKey
	tenant_no      INTEGER NOT NULL, -- tenant_numbers.no
	ts             INTEGER NOT NULL, -- epoch milliseconds
	actor_id       ANY     NOT NULL, -- uuidKey of the lowercased id
	actor_email_lc TEXT    NOT NULL,
	action         TEXT    NOT NULL,
	resource_type  TEXT    NOT NULL,
	resource_id    ANY     NOT NULL, -- uuidKey of the lowercased id
	cross_tenant   INTEGER NOT NULL,
	category       TEXT    NOT NULL,
	outcome        TEXT    NOT NULL,
	actor_role     TEXT    NOT NULL,
	actor_ip_key   BLOB    NOT NULL, -- the address's 16 bytes, IPv4 mapped; empty for none
	request_id     TEXT    NOT NULL,
	body           BLOB    NOT NULL,
	accept         BLOB,
	UNIQUE (tenant_no, id)
) STRICT;
INSERT INTO events_v21 (seq, id, tenant_no, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome,
		actor_role, actor_ip_key, request_id, body, accept)
	SELECT e.seq, auditlog_id_key(e.id), n.no, e.ts, auditlog_uuid_key(e.actor_id), e.actor_email_lc, e.action, e.resource_type,
		auditlog_uuid_key(e.resource_id), e.cross_tenant, e.category, e.outcome, e.actor_role, coalesce(unhex(e.actor_ip_key), CAST(e.actor_ip_key AS BLOB)),
		e.request_id, auditlog_elide_body(e.body, e.id, e.tenant_id, e.actor_id, e.resource_id), e.accept
	FROM events e JOIN tenant_numbers n ON n.tenant_id = e.tenant_id ORDER BY e.seq;
DROP TABLE events;
ALTER TABLE events_v21 RENAME TO events;

CREATE INDEX events_by_time      ON events (tenant_no, ts);
CREATE INDEX events_by_email     ON events (tenant_no, actor_email_lc, id, ts);
CREATE INDEX events_by_action    ON events (tenant_no, action, ts);
CREATE INDEX events_by_rtype     ON events (tenant_no, resource_type, ts);
CREATE INDEX events_by_actor     ON events (tenant_no, actor_id, ts);
CREATE INDEX events_by_resource  ON events (tenant_no, resource_id, ts);
CREATE INDEX events_by_ip        ON events (tenant_no, actor_ip_key, ts);
CREATE INDEX events_by_request   ON events (tenant_no, request_id COLLATE NOCASE);
CREATE INDEX events_cross_tenant ON events (tenant_no, ts) WHERE cross_tenant = 1;
CREATE INDEX events_by_outcome   ON events (tenant_no, outcome, ts) WHERE outcome <> 'success';

CREATE TABLE tlog_leaves_v21 (
	tenant_no INTEGER NOT NULL,
	leaf      INTEGER NOT NULL,
	event_id  ANY     NOT NULL, -- idKey
	hash      BLOB,             -- NULL for a leaf of the entry format (digest set)
	digest    BLOB,             -- NULL for a v1 leaf
	PRIMARY KEY (tenant_no, leaf)
) STRICT, WITHOUT ROWID;
INSERT INTO tlog_leaves_v21 (tenant_no, leaf, event_id, hash, digest)
	SELECT n.no, l.leaf, auditlog_id_key(l.event_id), CASE WHEN l.digest IS NULL OR auditlog_entry_hash(l.event_id, l.digest) IS NOT l.hash THEN l.hash END, l.digest
	FROM tlog_leaves l JOIN tenant_numbers n ON n.tenant_id = l.tenant_id ORDER BY n.no, l.leaf;
DROP TABLE tlog_leaves;
ALTER TABLE tlog_leaves_v21 RENAME TO tlog_leaves;
CREATE UNIQUE INDEX tlog_leaves_by_event ON tlog_leaves (tenant_no, event_id);
