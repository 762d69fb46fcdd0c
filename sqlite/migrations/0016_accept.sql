-- Acceptance (issue 53): the tag the accepting process bound each event
-- with (audit.Acceptor: an HMAC under a key no store holds, of the
-- tenant, the id and the digest of the canonical encoding). The sealer
-- seals a row only when its tag verifies against the row as stored. Rows
-- stored before this migration have none: those already sealed keep
-- verifying by their leaves; any other is never sealed (unaccepted).
ALTER TABLE events ADD COLUMN accept BLOB;
