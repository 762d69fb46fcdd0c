package audit

import (
	"context"
)

// WriteStatus is the fate of one event in a batch write.
type WriteStatus int

// The fates of an event handed to an EventWriter.
const (
	// WriteCreated: the event is durably stored.
	WriteCreated WriteStatus = iota
	// WriteDuplicate: the same event (same id, same content) was already
	// stored in its tenant; the id is the idempotency key, so this counts
	// as success.
	WriteDuplicate
	// WriteRejected: the store refuses this event for good (a mapping or
	// parsing error); it must be dead-lettered, never retried.
	WriteRejected
	// WriteRetry: a transient failure (overload, timeout, unavailable);
	// the event must be written again later.
	WriteRetry
	// WriteConflict: an event with the same id but different content is
	// already stored in the tenant. The stored one is kept (first wins:
	// the id is the idempotency key and audit events are immutable) and
	// this one is not stored; the writer must report it, never pass it off
	// as a duplicate.
	WriteConflict
)

func (s WriteStatus) String() string {
	switch s {
	case WriteCreated:
		return "created"
	case WriteDuplicate:
		return "duplicate"
	case WriteRejected:
		return "rejected"
	case WriteRetry:
		return "retry"
	case WriteConflict:
		return "conflict"
	}
	return "unknown"
}

// WriteResult is the outcome of one event of a batch.
type WriteResult struct {
	Status WriteStatus
	// Reason explains a rejection or a retry.
	Reason string
	// Full marks a WriteRetry the store answers because it is out of
	// capacity (an Elasticsearch cluster at its shard limit cannot create
	// a new tenant's stream): the event is good and waits, never
	// dead-lettered, until capacity frees.
	Full bool
}

// ConflictReason is the WriteResult.Reason of a WriteConflict.
const ConflictReason = "an event with this id and different content is already stored in this tenant; the stored event is kept (first wins)"

// Settle returns the result of writing e when an event with its id is
// already stored in its tenant: WriteDuplicate when stored is the same
// event, WriteConflict otherwise. Every store calls it, so the rule is one.
func Settle(e, stored *Event) WriteResult {
	if SameEvent(e, stored) {
		return WriteResult{Status: WriteDuplicate}
	}
	return WriteResult{Status: WriteConflict, Reason: ConflictReason}
}

// EventWriter stores batches of validated events. Ids are unique within
// a tenant, never across tenants: two tenants may store the same id.
type EventWriter interface {
	// WriteEvents writes the batch and returns only once every event it
	// reports as WriteCreated is durable. It returns one result per event,
	// in order. It returns an EUNAVAILABLE error, and no results, when the
	// store could not be reached at all; the whole batch must then be
	// retried.
	WriteEvents(ctx context.Context, events []Event) ([]WriteResult, error)
}

// StoredLookup is implemented by a store whose id uniqueness does not
// span all of a tenant's data by itself (Elasticsearch: an _id is unique
// within one backing index, so a redelivery after a rollover would be
// stored twice). StoredEvents returns the tenant's stored events among
// ids, seeing every write acknowledged before the call. Writers call it
// for events that may be redelivered, and settle those found (Settle)
// instead of writing them again.
type StoredLookup interface {
	StoredEvents(ctx context.Context, tenantID string, ids []string) (map[string]Event, error)
}
