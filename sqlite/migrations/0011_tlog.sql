-- The verifiable log (audit/tlog.go): one Merkle tree per tenant. Leaves
-- are appended in events.seq order: tlog_position is the seq of the last
-- sealed event (one row, changed by compare-and-set on rev). The tree's
-- hashes (tlog stored-hash indexes) and leaves stay when retention deletes
-- events, so the remaining events keep proving their inclusion.
CREATE TABLE tlog_position (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	seq INTEGER NOT NULL,
	rev INTEGER NOT NULL
) STRICT;

CREATE TABLE tlog_state (
	tenant_id TEXT PRIMARY KEY,
	body      BLOB NOT NULL
) STRICT;

CREATE TABLE tlog_hashes (
	tenant_id TEXT    NOT NULL,
	idx       INTEGER NOT NULL,
	hash      BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE tlog_leaves (
	tenant_id TEXT    NOT NULL,
	leaf      INTEGER NOT NULL,
	event_id  TEXT    NOT NULL,
	hash      BLOB    NOT NULL,
	PRIMARY KEY (tenant_id, leaf)
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX tlog_leaves_by_event ON tlog_leaves (tenant_id, event_id);
