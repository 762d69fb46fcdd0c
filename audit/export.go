package audit

import (
	"context"
)

// SyncExportLimit is the largest export served at once (spec §8): above
// it the export is produced by an asynchronous job and the user is told
// by e-mail.
const SyncExportLimit = 10000

// ExportColumns are the standard columns of a CSV export, in order: one
// column per nested field, and diff as compact JSON; the fields of
// EventFields with a Column, by its position.
var ExportColumns = exportColumns()

// EventScanner reads every event of a filter, for exports.
type EventScanner interface {
	// CountEvents counts the events of f exactly. It returns EUNAVAILABLE
	// when the store cannot be reached.
	CountEvents(ctx context.Context, f Filter) (int64, error)
	// ScanEvents calls fn with successive batches of the events of f in
	// sort s (the id breaking ties), each id once, read from a consistent
	// snapshot where the store has one (a point in time). fn must not keep
	// the slice after it returns. ScanEvents stops at fn's first error and
	// returns it; it returns EUNAVAILABLE when the store cannot be reached.
	ScanEvents(ctx context.Context, f Filter, s Sort, fn func([]Event) error) error
}
