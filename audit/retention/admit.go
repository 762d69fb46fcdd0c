package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Gate refuses, at ingest, an event its tenant could never read:
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
type Gate struct {
	Directory audit.TenantDirectory
	// Default is the plan of a tenant not in the directory yet (the plan
	// its first event will give it).
	Default audit.Plan
	Now     func() time.Time
}

// Check returns, for each event, nil or an EINVALID error naming its
// timestamp and the tenant's retention. The error is EUNAVAILABLE when
// the directory cannot be read: the caller retries the batch.
func (g *Gate) Check(ctx context.Context, events []audit.Event) ([]error, error) {
	out := make([]error, len(events))
	if g == nil {
		return out, nil
	}
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	at := now()
	plans := map[string]audit.Plan{}
	for i := range events {
		e := &events[i]
		if audit.Visible(audit.Plans[0], e.Timestamp.Time, at) {
			continue
		}
		plan, ok := plans[e.TenantID]
		if !ok {
			p, err := g.Directory.Plan(ctx, e.TenantID)
			if audit.ErrorCode(err) == audit.ENOTFOUND {
				p, err = g.Default, nil
			}
			if err != nil {
				return nil, err
			}
			plan, plans[e.TenantID] = p, p
		}
		if !audit.Visible(plan, e.Timestamp.Time, at) {
			out[i] = ExpiredError(e, plan)
		}
	}
	return out, nil
}

// ExpiredError is the refusal of an event older than its plan's
// retention: EINVALID naming the timestamp.
func ExpiredError(e *audit.Event, plan audit.Plan) error {
	days := int(plan.Retention() / (24 * time.Hour))
	return &audit.Error{Code: audit.EINVALID, Message: "invalid event", Fields: []audit.FieldError{{Field: "timestamp",
		Message: fmt.Sprintf("%s is older than the %d-day retention of tenant %s's %s plan: it would be deleted at once and never shown",
			e.Timestamp.Format(audit.TimestampLayout), days, e.TenantID, plan)}}}
}
