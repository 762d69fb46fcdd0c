package hold

import (
	"time"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// Bounds of a hold's text.
const (
	MaxMatterBytes    = 200
	MaxReferenceBytes = 200
)

// DefaultGrace is how long a release waits before it takes effect, when
// the deployment sets no other (AUDITLOG_HOLD_RELEASE_GRACE).
const DefaultGrace = 7 * 24 * time.Hour

// Request is what a holder sends to place or change a hold.
type Request struct {
	Matter    string `json:"matter"`
	Reason    string `json:"reason"`
	Reference string `json:"reference,omitempty"`
	Scope     Scope  `json:"scope"`
}

// Check returns an EINVALID error naming each bad member of r, or nil.
func (r *Request) Check() error {
	var fe audit.FieldErrors
	text := func(field, v string, max int, required bool) {
		switch {
		case required && v == "":
			fe.Add(field, "is required")
		case len(v) > max || !audit.CleanText(v):
			fe.Add(field, "must be text of at most %d bytes without control characters", max)
		}
	}
	text("matter", r.Matter, MaxMatterBytes, true)
	text("reason", r.Reason, audit.MaxReasonBytes, true)
	text("reference", r.Reference, MaxReferenceBytes, false)
	if s := r.Scope; s.From != nil && s.To != nil && !s.From.Before(s.To.Time) {
		fe.Add("scope.to", "must be after scope.from")
	}
	if _, err := r.Scope.Filter(audit.SystemActor.ID); err != nil {
		if e, ok := err.(*audit.Error); ok {
			fe = append(fe, e.Fields...)
		}
	}
	return fe.Err("invalid hold")
}

// Place returns a new hold of tenantID asked by p at now, and the record
// that places it. Errors: those of Authorize and Check.
func Place(p audit.Principal, tenantID string, r Request, now time.Time) (Hold, audit.Event, error) {
	if err := Authorize(p, tenantID); err != nil {
		return Hold{}, audit.Event{}, err
	}
	if err := r.Check(); err != nil {
		return Hold{}, audit.Event{}, err
	}
	h := Hold{ID: uuid.Must(uuid.NewV7()).String(), TenantID: tenantID, Matter: r.Matter, Reason: r.Reason,
		Reference: r.Reference, Scope: r.Scope, PlacedBy: p.Email, PlacedAt: audit.NewTimestamp(now)}
	return h, record(p, audit.ActionCreate, nil, &h, now, "legal hold placed: "+h.Matter), nil
}

// Change returns h with its matter, reason, reference and scope as r
// says, and the record of the change. A released hold cannot change (a
// new one is placed). Errors: those of Authorize and Check, ECONFLICT.
func Change(p audit.Principal, h Hold, r Request, now time.Time) (Hold, audit.Event, error) {
	if err := Authorize(p, h.TenantID); err != nil {
		return h, audit.Event{}, err
	}
	if h.State(now) == Released {
		return h, audit.Event{}, audit.Errorf(audit.ECONFLICT, "hold %s was released: place a new one", h.ID)
	}
	if err := r.Check(); err != nil {
		return h, audit.Event{}, err
	}
	was := h
	h.Matter, h.Reason, h.Reference, h.Scope = r.Matter, r.Reason, r.Reference, r.Scope
	return h, record(p, audit.ActionUpdate, &was, &h, now, "legal hold changed: "+h.Matter), nil
}

// AskRelease returns h with a release that takes effect grace after now,
// and its record. Only an active hold can be released. Errors: those of
// Authorize, ECONFLICT.
func AskRelease(p audit.Principal, h Hold, now time.Time, grace time.Duration) (Hold, audit.Event, error) {
	if err := Authorize(p, h.TenantID); err != nil {
		return h, audit.Event{}, err
	}
	if st := h.State(now); st != Active {
		return h, audit.Event{}, audit.Errorf(audit.ECONFLICT, "hold %s is %s", h.ID, st)
	}
	was := h
	h.Release = &Release{RequestedBy: p.Email, RequestedAt: audit.NewTimestamp(now), EffectiveAt: audit.NewTimestamp(now.Add(grace))}
	return h, record(p, audit.ActionUpdate, &was, &h, now, "legal hold release asked, effective "+h.Release.EffectiveAt.Format(audit.TimestampLayout)+": "+h.Matter), nil
}

// UndoRelease returns h active again, and its record: only while its
// release waits. Errors: those of Authorize, ECONFLICT.
func UndoRelease(p audit.Principal, h Hold, now time.Time) (Hold, audit.Event, error) {
	if err := Authorize(p, h.TenantID); err != nil {
		return h, audit.Event{}, err
	}
	if st := h.State(now); st != Releasing {
		return h, audit.Event{}, audit.Errorf(audit.ECONFLICT, "hold %s is %s: only a release that has not taken effect can be undone", h.ID, st)
	}
	was := h
	h.Release = nil
	return h, record(p, audit.ActionUpdate, &was, &h, now, "legal hold release undone: "+h.Matter), nil
}
