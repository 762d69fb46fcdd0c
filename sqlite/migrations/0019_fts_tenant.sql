-- Every word of the text index is prefixed with its tenant's mark
-- (sqlite/text.go, tenantPrefix), as every word a query asks for: a
-- word's doclist is one tenant's rows, so a word's count over all time is
-- read from the index alone instead of looking up every tenant's matching
-- rows in the table (issue 58). The index is rebuilt from the stored
-- events, as 0017 did (about a minute per million events).
DROP TABLE events_fts;
CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '_'");
INSERT INTO events_fts (rowid, search, reason)
	SELECT seq, auditlog_search_text(body), auditlog_reason_text(body) FROM events;
