-- Deployment keys the service generates for itself (the secret-masking key
-- when none is configured): every process on this store shares them.
CREATE TABLE keys (
	name       TEXT    PRIMARY KEY,
	value      BLOB    NOT NULL,
	created_at INTEGER NOT NULL -- epoch milliseconds
) STRICT;
