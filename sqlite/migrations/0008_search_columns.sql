-- The search language's role:, ip: and request: qualifiers read columns
-- of their own, filled here from the stored events. actor_ip_key is the
-- address as 32 hex digits of its 16 bytes (an IPv4 address IPv4-mapped),
-- so that a CIDR block is a range of keys (auditlog_ip_key, sqlite/functions.go).
ALTER TABLE events ADD COLUMN actor_role TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN actor_ip_key TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN request_id TEXT NOT NULL DEFAULT '';
UPDATE events SET
	actor_role = coalesce(CAST(body AS TEXT) ->> '$.actor.role', ''),
	actor_ip_key = auditlog_ip_key(coalesce(CAST(body AS TEXT) ->> '$.actor.ip', '')),
	request_id = coalesce(CAST(body AS TEXT) ->> '$.requestId', '');
CREATE INDEX events_by_ip      ON events (tenant_id, actor_ip_key, ts);
CREATE INDEX events_by_request ON events (tenant_id, request_id);
