-- Saved searches (audit/savedsearch.go): one list per tenant and user,
-- changed by compare-and-set on rev.
CREATE TABLE saved_searches (
	tenant_id TEXT    NOT NULL,
	user_id   TEXT    NOT NULL,
	rev       INTEGER NOT NULL,
	body      BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, user_id)
) STRICT;
