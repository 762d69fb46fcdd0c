-- The leaves' entries (audit.EntryFormat, auditlog-event-v2): each leaf
-- sealed from now on keeps its event's digest (SHA-256 of the canonical
-- encoding), from which its entry is served in the C2SP tlog-tiles entry
-- bundles, even after retention deletes the event. NULL: a leaf sealed
-- before, whose leaf hash is that of the canonical encoding itself.
ALTER TABLE tlog_leaves ADD COLUMN digest BLOB;
