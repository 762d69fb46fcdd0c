package audit

import (
	"context"
	"time"
)

// Plan is a tenant's subscription plan; it sets the retention of the
// tenant's log (spec §8).
type Plan string

// The plans of spec §8.
const (
	PlanStarter    Plan = "starter"
	PlanPro        Plan = "pro"
	PlanEnterprise Plan = "enterprise"
)

// Plans lists every plan, shortest retention first.
var Plans = []Plan{PlanStarter, PlanPro, PlanEnterprise}

// Valid reports whether p is a known plan.
func (p Plan) Valid() bool { return p == PlanStarter || p == PlanPro || p == PlanEnterprise }

// Retention is how long the plan keeps events (spec §8): Starter 30 days,
// Pro 1 year, Enterprise 7 years (2557 days, counting the leap days).
func (p Plan) Retention() time.Duration {
	const day = 24 * time.Hour
	switch p {
	case PlanStarter:
		return 30 * day
	case PlanPro:
		return 365 * day
	case PlanEnterprise:
		return 2557 * day
	}
	return 0
}

// ParsePlan returns the plan named s, or EINVALID.
func ParsePlan(s string) (Plan, error) {
	p := Plan(s)
	if !p.Valid() {
		return "", Errorf(EINVALID, "plan %q: want starter, pro or enterprise", s)
	}
	return p, nil
}

// CheckPlanChange validates the arguments of TenantDirectory.SetPlan: an
// EINVALID error for a tenant id that is not a UUID or an unknown plan.
func CheckPlanChange(tenantID string, plan Plan) error {
	if !ValidUUID(tenantID) {
		return Errorf(EINVALID, "tenant %q is not a UUID", tenantID)
	}
	_, err := ParsePlan(string(plan))
	return err
}

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

// KeyStore keeps the keys the service generates for itself (the
// secret-masking key when none is configured) in the store, so every
// process that uses the store shares them.
type KeyStore interface {
	// Key returns the key stored under name, storing fresh first when
	// there is none: the first value stored wins, and every later call,
	// from any process, returns it. Errors: EUNAVAILABLE.
	Key(ctx context.Context, name string, fresh []byte) ([]byte, error)
}

// TenantDirectory maps tenants to plans.
type TenantDirectory interface {
	// Plan returns the tenant's plan, or ENOTFOUND for an unknown tenant.
	Plan(ctx context.Context, tenantID string) (Plan, error)
	// EnsureTenant returns the tenant's plan, registering the tenant with
	// def first when it is unknown. Concurrent calls agree on one plan.
	EnsureTenant(ctx context.Context, tenantID string, def Plan) (Plan, error)
	// SetPlan changes the tenant's plan (registering it if needed), and
	// applies the new retention to the tenant's data already stored. It
	// returns EINVALID for a bad tenant id or plan.
	SetPlan(ctx context.Context, tenantID string, plan Plan) error
	// Tenants returns at most limit tenants of the directory whose id
	// sorts after after ("" for the first page), in id order: keyset
	// paging, so listing every tenant holds one page at a time. It returns
	// EINVALID for a limit outside 1..MaxTenantPage.
	Tenants(ctx context.Context, after string, limit int) ([]Tenant, error)
}

// Tenant is one entry of the tenant directory.
type Tenant struct {
	ID        string    `json:"tenantId"`
	Plan      Plan      `json:"plan"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MaxTenantPage bounds one page of TenantDirectory.Tenants.
const MaxTenantPage = 1000

// CheckTenantPage validates the limit of TenantDirectory.Tenants.
func CheckTenantPage(limit int) error {
	if limit < 1 || limit > MaxTenantPage {
		return Errorf(EINVALID, "limit %d: want 1 to %d", limit, MaxTenantPage)
	}
	return nil
}
