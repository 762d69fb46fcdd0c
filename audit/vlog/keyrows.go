package vlog

import (
	"context"
)

// No key is read from the store (issue 53): every key the service signs,
// verifies, tags or masks with comes from configuration (files, flags,
// variables), so that whoever can write the database or the cluster
// cannot plant one. Versions before this one kept generated keys in the
// store (SQLite table keys, the <prefix>-keys index); such rows are now
// ignored, and a verifier of the store names each.

// KeyRows lists the rows of a store's keys table (or index): what an
// earlier version kept there, or what someone planted. Nothing reads
// their values; `auditlog log verify` names each. Errors: EUNAVAILABLE.
type KeyRows interface {
	KeyRows(ctx context.Context) ([]string, error)
}
