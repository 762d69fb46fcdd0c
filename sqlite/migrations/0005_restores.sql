-- Restore requests: kept until delivered to the owning service, then
-- until their outcome is known. The request id is derived from the
-- tenant and the idempotency key, so a repeated ask hits the primary key.
CREATE TABLE restores (
	tenant_id       TEXT    NOT NULL,
	request_id      TEXT    NOT NULL,
	delivered       INTEGER NOT NULL, -- 0 or 1
	next_attempt_at INTEGER NOT NULL, -- epoch milliseconds
	created_at      INTEGER NOT NULL, -- epoch milliseconds
	rev             INTEGER NOT NULL,
	body            BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, request_id)
) STRICT;

CREATE INDEX restores_due ON restores (delivered, next_attempt_at, created_at);
