package audit

import (
	"slices"
	"time"
)

// The delivery schedule of restore requests: retried with doubling waits
// from RestoreRetryMin up to RestoreRetryMax, for as long as it takes; a
// request is never dropped. A process delivering a request holds it for
// RestoreClaimLease, so that another replica does not send it too.
const (
	RestoreRetryMin   = time.Second
	RestoreRetryMax   = 5 * time.Minute
	RestoreClaimLease = 30 * time.Second
)

// RestoreBackoff is the wait after the attempts-th failed delivery.
func RestoreBackoff(attempts int) time.Duration {
	d := RestoreRetryMin
	for i := 1; i < attempts && d < RestoreRetryMax; i++ {
		d *= 2
	}
	return min(d, RestoreRetryMax)
}

// Claim takes r for one delivery attempt at now: it counts the attempt
// and hides r from DueRestores for the lease. Stored with the store's
// compare-and-set, one claimant wins.
func (r *RestoreRecord) Claim(now time.Time) {
	r.Attempts++
	r.NextAttemptAt = now.Add(RestoreClaimLease)
}

// Delivered records that the owner received r at now.
func (r *RestoreRecord) Delivered(now time.Time) {
	t := now.UTC()
	r.DeliveredAt = &t
	r.LastError = ""
}

// DeliveryFailed records a failed attempt at now and schedules the next.
func (r *RestoreRecord) DeliveryFailed(now time.Time, err error) {
	r.LastError = err.Error()
	r.NextAttemptAt = now.Add(RestoreBackoff(r.Attempts))
}

// Settle applies the owner's outcome event e (an update carrying
// restoredFrom = r's id) to a pending r: applied, or failed with the
// event's reason when its outcome is failure. It reports whether r
// changed; an outcome already recorded is kept (the first one wins).
func (r *RestoreRecord) Settle(e *Event) bool {
	if r.Status != RestorePending || e.RestoredFrom != r.RequestID || e.TenantID != r.TenantID {
		return false
	}
	r.Status, r.StatusReason = RestoreApplied, ""
	if e.Outcome == OutcomeFailure {
		r.Status, r.StatusReason = RestoreFailed, e.Reason
	}
	r.OutcomeEventID = e.ID
	return true
}

// SameAsk reports whether a repeated ask under r's idempotency key asks
// the same restore; a different one is refused rather than answered with
// the first one's outcome.
func (r *RestoreRecord) SameAsk(sourceEventID, version string, fields []string) bool {
	if version == "" {
		version = RestoreBefore
	}
	return r.SourceEventID == sourceEventID && r.Version == version && slices.Equal(r.Fields, fields)
}

// CheckRestorable refuses a source event older than the retention of the
// tenant's plan at now: it is outside the resource's retained history
// even when the store has not deleted it yet. Errors: ENOTFOUND.
func CheckRestorable(source *Event, plan Plan, now time.Time) error {
	if !plan.Valid() || !source.Timestamp.Before(now.Add(-plan.Retention())) {
		return nil
	}
	return Errorf(ENOTFOUND, "event %s is past the retention of the %s plan (%d days): it is no longer in the resource's retained history and cannot be restored",
		source.ID, plan, int(plan.Retention()/(24*time.Hour)))
}

// RestoreNotFound is the answer for a source event the tenant does not
// have: never stored, another tenant's, or deleted with its retention.
func RestoreNotFound(id string) error {
	return Errorf(ENOTFOUND, "no audit event %s in this tenant's retained history (events past the plan's retention are deleted and cannot be restored)", id)
}
