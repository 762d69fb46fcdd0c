package client

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/audit"
)

// Change describes one action on a resource, for Event.
type Change struct {
	TenantID string
	Actor    audit.Actor
	Action   audit.Action
	Resource audit.Resource
	// Before and After are the complete states (any JSON-encodable
	// value: a struct, a map), nil when there is none. Updates of the
	// sensitive types need both.
	Before, After any
	Category      audit.Category
	Outcome       audit.Outcome
	Reason        string
	RequestID     string
	// RestoredFrom is the restore request this change applies (Applied
	// and Failed set it).
	RestoredFrom string
}

// Event builds a valid event from ch: a new id, the time now and the
// states encoded. With Config.MaskKey, every secret field is masked and
// the diff computed from the masked states; without, the states go as
// they are and the service masks them and computes the diff. Errors:
// *audit.Error EINVALID listing each offending field.
func (c *Client) Event(ch Change) (audit.Event, error) {
	e := audit.Event{ID: audit.NewID(), Timestamp: audit.NewTimestamp(c.cfg.Now()), TenantID: ch.TenantID, Actor: ch.Actor,
		Action: ch.Action, Resource: ch.Resource, Category: ch.Category, Outcome: ch.Outcome, Reason: ch.Reason,
		RequestID: ch.RequestID, RestoredFrom: ch.RestoredFrom}
	var err error
	if e.Before, err = state(ch.Before); err != nil {
		return e, audit.Errorf(audit.EINVALID, "before: %v", err)
	}
	if e.After, err = state(ch.After); err != nil {
		return e, audit.Errorf(audit.EINVALID, "after: %v", err)
	}
	e.Normalize()
	if err := e.Validate(c.cfg.Now()); err != nil {
		return e, err
	}
	if c.cfg.MaskKey == nil {
		return e, c.policy.Require(&e)
	}
	return e, c.policy.Apply(&e)
}

func state(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(v)
}

// Applied is the change an owner reports after putting a restore request
// back: an update of the request's resource, from before (the state it
// replaced) to after (the state now), carrying restoredFrom.
func Applied(req restorejob.Request, actor audit.Actor, before, after any) Change {
	return Change{TenantID: req.TenantID, Actor: actor, Action: audit.ActionUpdate, Resource: req.Resource,
		Before: before, After: after, RestoredFrom: req.RequestID}
}

// Failed is the change an owner reports when it refuses a restore request
// (the resource changed since expectedState, a rule forbids it): an
// update with outcome failure and the reason, state unchanged.
func Failed(req restorejob.Request, actor audit.Actor, current any, reason string) Change {
	return Change{TenantID: req.TenantID, Actor: actor, Action: audit.ActionUpdate, Resource: req.Resource,
		Before: current, After: current, Outcome: audit.OutcomeFailure, Reason: reason, RestoredFrom: req.RequestID}
}
