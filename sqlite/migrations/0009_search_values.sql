-- Free text also finds the operator's declared reason and the changed
-- values (audit.Event.SearchValues), and reason: searches the reason
-- alone: the index gets a reason column and is rebuilt from the stored
-- events (auditlog_search_text is searchText in SQL, sqlite/functions.go).
DROP TABLE events_fts;
CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 tokenchars '_'");
INSERT INTO events_fts (rowid, search, reason)
	SELECT seq, auditlog_search_text(body), coalesce(CAST(body AS TEXT) ->> '$.reason', '') FROM events;
