-- Each tenant gets a number, and the text index marks its words with it
-- (sqlite/text.go, tenantPrefix) instead of the tenant id in hex (0019):
-- a mark of a few bytes instead of 78 for a UUID on every word, which
-- made writes about 15% slower (issue 58). Numbers are given in the order
-- of the ids here, then in the write transaction of a tenant's first
-- event. The index is rebuilt from the stored events (about two minutes
-- per million events).
CREATE TABLE tenant_numbers (
	no        INTEGER PRIMARY KEY,
	tenant_id TEXT    NOT NULL UNIQUE
) STRICT;
INSERT INTO tenant_numbers (tenant_id) SELECT DISTINCT tenant_id FROM events ORDER BY tenant_id;
DROP TABLE events_fts;
CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '_'");
INSERT INTO events_fts (rowid, search, reason)
	SELECT e.seq, auditlog_tenant_search_text(e.body, n.no), auditlog_tenant_reason_text(e.body, n.no)
	FROM events e JOIN tenant_numbers n ON n.tenant_id = e.tenant_id;
