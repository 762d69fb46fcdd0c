-- One word model on both stores (issue 56): the text index holds the
-- words search.AppendFolded makes of each text (lower case, accents
-- removed, a value break between two values so that a phrase never spans
-- them; sqlite/text.go), and its tokenizer removes no diacritics of its
-- own. The index is rebuilt from the stored events (auditlog_search_text
-- is searchText, auditlog_reason_text reasonText: sqlite/functions.go).
DROP TABLE events_fts;
CREATE VIRTUAL TABLE events_fts USING fts5(search, reason, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0 tokenchars '_'");
INSERT INTO events_fts (rowid, search, reason)
	SELECT seq, auditlog_search_text(body), auditlog_reason_text(body) FROM events;

-- Request ids match in any case of their ASCII letters, as on
-- Elasticsearch (a term query's case_insensitive): the index compares so.
DROP INDEX events_by_request;
CREATE INDEX events_by_request ON events (tenant_id, request_id COLLATE NOCASE);
