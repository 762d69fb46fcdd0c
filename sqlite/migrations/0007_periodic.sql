-- The periodic export (audit/periodic.go): per tenant, its settings, its
-- chain's head and the lease of the replica exporting it; and one record
-- per delivered window or late file, for the tenant API.
CREATE TABLE periodic_state (
	tenant_id TEXT    PRIMARY KEY,
	rev       INTEGER NOT NULL,
	body      BLOB    NOT NULL
) STRICT;

CREATE TABLE periodic_records (
	tenant_id    TEXT    NOT NULL,
	window_start INTEGER NOT NULL, -- epoch milliseconds
	late         INTEGER NOT NULL,
	body         BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, window_start, late)
) STRICT;
