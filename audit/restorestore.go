package audit

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/google/uuid"
)

// RestoreStatus is where a restore request stands: pending until the
// owning service reports it applied (an event carrying restoredFrom) or
// failed.
type RestoreStatus string

// The restore statuses.
const (
	RestorePending RestoreStatus = "pending"
	RestoreApplied RestoreStatus = "applied"
	RestoreFailed  RestoreStatus = "failed"
)

// RestoreRecord is a restore request as the store keeps it: the request,
// its delivery to the owning service, and its outcome.
type RestoreRecord struct {
	RestoreRequest
	IdempotencyKey string        `json:"idempotencyKey"`
	Status         RestoreStatus `json:"status"`
	StatusReason   string        `json:"statusReason,omitempty"`
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

// RestoreRequestID is the request id of a tenant's restore with an
// idempotency key, a UUID: derived, so that the same key always names the same
// request and a repeated ask finds the first one by id alone.
func RestoreRequestID(tenantID, idempotencyKey string) string {
	h := sha256.Sum256([]byte("restore\x00" + strings.ToLower(tenantID) + "\x00" + idempotencyKey))
	return uuid.NewSHA1(uuid.Nil, h[:]).String()
}

// RestoreRecordID is the event id of the record of a restore ask whose
// request id is requestID (derived from its idempotency key) and whose
// outcome is outcome ("accepted", or the refusal's text). It is derived,
// not minted: repeats of one ask, at once or later, write one record,
// since a store keeps the first event of an id. An ask without a key gets
// a fresh request id, so its record is its own.
func RestoreRecordID(requestID, outcome string) string {
	return DerivedID("restore-record", requestID, outcome)
}

// DerivedID is the event id of a record the service writes of something
// that must be recorded once however often it is attempted: a UUIDv5 of
// kind and parts, so that the same parts always give the same id and the
// store keeps one event.
func DerivedID(kind string, parts ...string) string {
	h := sha256.Sum256([]byte(kind + "\x00" + strings.Join(parts, "\x00")))
	return IDPrefix + uuid.NewSHA1(uuid.Nil, h[:]).String()
}

// RestoreStore keeps restore requests until they are delivered, and
// their outcome.
type RestoreStore interface {
	// CreateRestore stores r (its RequestID derived by RestoreRequestID)
	// unless the tenant already has that request: then it returns the
	// stored one and created false. Errors: EUNAVAILABLE.
	CreateRestore(ctx context.Context, r RestoreRecord) (stored RestoreRecord, created bool, err error)
	// GetRestore returns a tenant's request; ENOTFOUND for an unknown id
	// or another tenant's.
	GetRestore(ctx context.Context, tenantID, requestID string) (RestoreRecord, error)
	// DueRestores lists undelivered requests whose NextAttemptAt is not
	// after now, oldest first, at most limit.
	DueRestores(ctx context.Context, now time.Time, limit int) ([]RestoreRecord, error)
	// UpdateRestore replaces r when its Rev is still the stored one and
	// sets the new Rev; ECONFLICT when it changed meanwhile.
	UpdateRestore(ctx context.Context, r *RestoreRecord) error
}
