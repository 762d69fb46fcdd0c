package vlog

import (
	"context"

	"github.com/auditlog/auditlog/audit"
)

// StoredRow is one event as a store keeps it, read for verification: the
// key the store files it under (the event id column of SQLite, the _id of
// an Elasticsearch document) and the event decoded from the row, or Err
// when the row is not a well-formed event of its tenant filed under its
// own id. A verifier treats every stored byte as input: a malformed row
// is a finding about that row, never a reason to stop (issue 41).
type StoredRow struct {
	Key   string
	Event audit.Event
	Err   error
	// Misindexed names what the store keeps beside a well-formed event
	// for filters, sorting, search or statistics (a column, a derived
	// field) and that differs from what the event implies: an index
	// edited to hide the event from a query while its body, and so its
	// proof, are intact.
	Misindexed []string
	// Tag is the acceptance tag stored with the row (Acceptor), nil for
	// none: a verifier holding the acceptance key tells a row the service
	// accepted but has not sealed yet from one it never accepted.
	Tag []byte
}

// RowScanner reads every stored event of a tenant for verification, rows
// that do not decode included (each with its Err), in batches. It
// returns, once every row is read, what the store keeps about many events
// at once (counts behind the statistics) and that disagrees with the
// events it read. It returns EUNAVAILABLE when the store cannot be read;
// a malformed row is never an error of the scan.
type RowScanner interface {
	ScanRows(ctx context.Context, tenantID string, fn func([]StoredRow) error) ([]IndexFinding, error)
}

// IndexFinding is one aggregate a store keeps for queries (an hourly
// count) that disagrees with the events it holds: Where names it, Detail
// says how.
type IndexFinding struct {
	Where, Detail string
	// EventID, when set, is the one event the finding is about (its row
	// of a text index): the verifier names it at that event's leaf, as
	// Misindexed, with Detail.
	EventID string
}

// DecodeStoredRow decodes the JSON of a stored event (the API's shape) for
// verification, filed under key in tenantID's log. It never panics: any
// bytes give a row, with Err (EINVALID) naming what is wrong when they are
// not JSON, hold a wrong type, an unknown, repeated or case-folded key or
// invalid UTF-8 (the strict decode of DecodeEvent), or another event than
// key, or an event of another tenant. The event's rules are not checked:
// what was stored is judged by its leaf, not by today's rules.
func DecodeStoredRow(key, tenantID string, body []byte) StoredRow {
	e, err := audit.DecodeStoredEvent(body)
	if err != nil {
		return StoredRow{Key: key, Err: err}
	}
	return CheckedRow(key, tenantID, e, nil)
}

// CheckedRow is a row a store decoded itself (its own document shape):
// err, when the decoding failed, becomes the row's Err; a decoded event
// must be of tenantID and filed under its own id, key.
func CheckedRow(key, tenantID string, e audit.Event, err error) StoredRow {
	if err != nil {
		return StoredRow{Key: key, Err: audit.Errorf(audit.EINVALID, "the stored row does not decode: %v", err)}
	}
	row := StoredRow{Key: key, Event: e}
	switch {
	case e.ID != row.Key:
		row.Err = audit.Errorf(audit.EINVALID, "the row filed as %s holds the event %q", row.Key, e.ID)
	case audit.NormalizeTenantID(e.TenantID) != tenantID:
		row.Err = audit.Errorf(audit.EINVALID, "the row holds an event of another tenant (%q)", e.TenantID)
	}
	return row
}

// IndexRepairer rewrites what a store keeps beside events for queries
// (columns, text index rows, search fields; with aggregates, the
// tenant's counts behind the statistics) from the events as stored: the
// repair of what log verify names misindexed. Only events whose bodies
// verified against their leaves are to be repaired, so that a repair
// never spreads an edited body into the indexes. It returns how many
// events it rewrote. Errors: EUNAVAILABLE.
type IndexRepairer interface {
	RepairIndex(ctx context.Context, tenantID string, eventIDs []string, aggregates bool) (int, error)
}
