-- Streams (audit/stream.go): a tenant's deliveries to its SIEM or
-- storage, each changed by compare-and-set on rev; listed oldest first.
CREATE TABLE streams (
	tenant_id  TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	rev        INTEGER NOT NULL,
	body       BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, id)
) STRICT;
