package audit

import (
	"context"
	"fmt"
	"time"
)

// RetentionGate refuses, at ingest, an event its tenant could never read:
// one older than the retention of the tenant's plan. Stored, it would be
// hidden at once by Retained and deleted by the next retention pass, so
// "accepted" would not mean "readable". Both entry points apply it (HTTP
// ingest answers the event rejected; the Kafka indexer dead-letters it
// with the reason), and it reads the plan at write time, so an event that
// arrives after its tenant's plan was lowered below its age is refused
// too.
//
// Only an event older than the shortest plan's retention can be refused,
// so the directory is asked only for those: the common case costs
// nothing.
type RetentionGate struct {
	Directory TenantDirectory
	// Default is the plan of a tenant not in the directory yet (the plan
	// its first event will give it).
	Default Plan
	Now     func() time.Time
}

// Check returns, for each event, nil or an EINVALID error naming its
// timestamp and the tenant's retention. The error is EUNAVAILABLE when
// the directory cannot be read: the caller retries the batch.
func (g *RetentionGate) Check(ctx context.Context, events []Event) ([]error, error) {
	out := make([]error, len(events))
	if g == nil {
		return out, nil
	}
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	at := now()
	plans := map[string]Plan{}
	for i := range events {
		e := &events[i]
		if Visible(Plans[0], e.Timestamp.Time, at) {
			continue
		}
		plan, ok := plans[e.TenantID]
		if !ok {
			p, err := g.Directory.Plan(ctx, e.TenantID)
			if ErrorCode(err) == ENOTFOUND {
				p, err = g.Default, nil
			}
			if err != nil {
				return nil, err
			}
			plan, plans[e.TenantID] = p, p
		}
		if !Visible(plan, e.Timestamp.Time, at) {
			out[i] = ExpiredError(e, plan)
		}
	}
	return out, nil
}

// ExpiredError is the refusal of an event older than its plan's
// retention: EINVALID naming the timestamp.
func ExpiredError(e *Event, plan Plan) error {
	days := int(plan.Retention() / (24 * time.Hour))
	return &Error{Code: EINVALID, Message: "invalid event", Fields: []FieldError{{Field: "timestamp",
		Message: fmt.Sprintf("%s is older than the %d-day retention of tenant %s's %s plan: it would be deleted at once and never shown",
			e.Timestamp.Format(TimestampLayout), days, e.TenantID, plan)}}}
}
