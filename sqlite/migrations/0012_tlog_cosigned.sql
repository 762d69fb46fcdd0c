-- Each tenant's latest cosigned checkpoint (audit.CosignStore): the
-- checkpoint note with the log's signature and the witnesses'
-- cosignatures, replaced only by a bigger tree or more signatures.
CREATE TABLE tlog_cosigned (
	tenant_id TEXT    PRIMARY KEY,
	size      INTEGER NOT NULL,
	note      TEXT    NOT NULL,
	at        INTEGER NOT NULL
) STRICT;
