-- The tree's stored hashes in blocks of 120 consecutive hashes, one row a
-- block (sqlite/tlogblocks.go): a row per hash took about 80 bytes a
-- hash, a block about 34 (issue 58). auditlog_hash_block(idx, hash)
-- packs a block's rows, each hash at its place.
CREATE TABLE tlog_hash_blocks (
	tenant_id TEXT    NOT NULL,
	block     INTEGER NOT NULL,
	hashes    BLOB    NOT NULL,
	UNIQUE (tenant_id, block)
) STRICT;
INSERT INTO tlog_hash_blocks (tenant_id, block, hashes)
	SELECT tenant_id, idx / 120, auditlog_hash_block(idx, hash) FROM tlog_hashes GROUP BY tenant_id, idx / 120;
DROP TABLE tlog_hashes;
