package restorejob

import (
	"context"
	"crypto/sha256"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"

	"github.com/google/uuid"
)

// Status is where a restore request stands: pending until the
// owning service reports it applied (an event carrying restoredFrom) or
// failed.
type Status string

// The restore statuses.
const (
	Pending Status = "pending"
	Applied Status = "applied"
	Failed  Status = "failed"
)

// Record is a restore request as the store keeps it: the request,
// its delivery to the owning service, and its outcome.
type Record struct {
	Request
	IdempotencyKey string `json:"idempotencyKey"`
	Status         Status `json:"status"`
	StatusReason   string `json:"statusReason,omitempty"`
	// OutcomeEventID is the owner's event that applied (or refused) the
	// request.
	OutcomeEventID string `json:"outcomeEventId,omitempty"`
	// DeliveredAt is set once the request reached the owner (Kafka
	// acknowledged it, or the webhook answered 2xx); until then it is
	// retried at NextAttemptAt.
	DeliveredAt   *time.Time `json:"deliveredAt,omitempty"`
	Attempts      int        `json:"attempts"`
	NextAttemptAt time.Time  `json:"nextAttemptAt"`
	LastError     string     `json:"lastError,omitempty"`
	// Rev is the store's revision, for compare-and-set updates.
	Rev string `json:"-"`
}

// RequestID is the request id of a tenant's restore with an
// idempotency key, a UUID: derived, so that the same key always names the same
// request and a repeated ask finds the first one by id alone.
func RequestID(tenantID, idempotencyKey string) string {
	h := sha256.Sum256([]byte("restore\x00" + tenantID + "\x00" + idempotencyKey))
	return uuid.NewSHA1(uuid.Nil, h[:]).String()
}

// RecordID is the event id of the record of a restore ask whose
// request id is requestID (derived from its idempotency key) and whose
// outcome is outcome ("accepted", or the refusal's text). It is derived,
// not minted: repeats of one ask, at once or later, write one record,
// since a store keeps the first event of an id. An ask without a key gets
// a fresh request id, so its record is its own.
func RecordID(requestID, outcome string) string {
	return audit.DerivedID("restore-record", requestID, outcome)
}

// Store keeps restore requests until they are delivered, and
// their outcome.
type Store interface {
	// CreateRestore stores r (its RequestID derived by RequestID)
	// unless the tenant already has that request: then it returns the
	// stored one and created false. Errors: EUNAVAILABLE.
	CreateRestore(ctx context.Context, r Record) (stored Record, created bool, err error)
	// GetRestore returns a tenant's request; ENOTFOUND for an unknown id
	// or another tenant's.
	GetRestore(ctx context.Context, tenantID, requestID string) (Record, error)
	// DueRestores lists undelivered requests whose NextAttemptAt is not
	// after now, oldest first, at most limit.
	DueRestores(ctx context.Context, now time.Time, limit int) ([]Record, error)
	// UpdateRestore replaces r when its Rev is still the stored one and
	// sets the new Rev; ECONFLICT when it changed meanwhile.
	UpdateRestore(ctx context.Context, r *Record) error
}

// The delivery schedule of restore requests: retried with doubling waits
// from RetryMin up to RetryMax, for as long as it takes; a
// request is never dropped. A process delivering a request holds it for
// ClaimLease, so that another replica does not send it too.
const (
	RetryMin   = time.Second
	RetryMax   = 5 * time.Minute
	ClaimLease = 30 * time.Second
)

// Backoff is the wait after the attempts-th failed delivery.
func Backoff(attempts int) time.Duration {
	d := RetryMin
	for i := 1; i < attempts && d < RetryMax; i++ {
		d *= 2
	}
	return min(d, RetryMax)
}

// Claim takes r for one delivery attempt at now: it counts the attempt
// and hides r from DueRestores for the lease. Stored with the store's
// compare-and-set, one claimant wins.
func (r *Record) Claim(now time.Time) {
	r.Attempts++
	r.NextAttemptAt = now.Add(ClaimLease)
}

// Delivered records that the owner received r at now.
func (r *Record) Delivered(now time.Time) {
	t := now.UTC()
	r.DeliveredAt = &t
	r.LastError = ""
}

// DeliveryFailed records a failed attempt at now and schedules the next.
func (r *Record) DeliveryFailed(now time.Time, err error) {
	r.LastError = err.Error()
	r.NextAttemptAt = now.Add(Backoff(r.Attempts))
}

// Settle applies the owner's outcome event e (an update carrying
// restoredFrom = r's id) to a pending r: applied, or failed with the
// event's reason when its outcome is failure. It reports whether r
// changed; an outcome already recorded is kept (the first one wins).
func (r *Record) Settle(e *audit.Event) bool {
	if r.Status != Pending || e.RestoredFrom != r.RequestID || e.TenantID != r.TenantID {
		return false
	}
	r.Status, r.StatusReason = Applied, ""
	if e.Outcome == audit.OutcomeFailure {
		r.Status, r.StatusReason = Failed, e.Reason
	}
	r.OutcomeEventID = e.ID
	return true
}

// SameAsk reports whether a repeated ask under r's idempotency key asks
// the same restore; a different one is refused rather than answered with
// the first one's outcome.
func (r *Record) SameAsk(sourceEventID, version string, fields []string) bool {
	if version == "" {
		version = Before
	}
	return r.SourceEventID == sourceEventID && r.Version == version && slices.Equal(r.Fields, fields)
}
