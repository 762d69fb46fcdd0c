-- Export jobs: the columns that jobs are looked up by, and the job itself
-- as JSON. rev is bumped by every update (compare-and-set).
CREATE TABLE export_jobs (
	id         TEXT    PRIMARY KEY,
	tenant_id  TEXT    NOT NULL,
	owner_id   TEXT    NOT NULL,
	state      TEXT    NOT NULL,
	created_at INTEGER NOT NULL, -- epoch milliseconds
	expires_at INTEGER,          -- epoch milliseconds
	rev        INTEGER NOT NULL,
	body       BLOB    NOT NULL
) STRICT;

CREATE INDEX export_jobs_by_owner ON export_jobs (tenant_id, owner_id, created_at);
CREATE INDEX export_jobs_by_state ON export_jobs (state, created_at);
