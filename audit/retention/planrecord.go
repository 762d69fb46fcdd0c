package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// planDetails is a plan change record's before and after.
type planDetails struct {
	Plan          audit.Plan `json:"plan"`
	RetentionDays int        `json:"retentionDays"`
}

// PlanChangeRecord is the system event that records in the tenant's log
// a change of its plan, and so of its retention: a verifier who sees
// leaves deleted under a shorter retention (retention records name the
// plan) finds in the log when the plan changed, and from what. It is
// written before the change (a change that then fails leaves a record of
// an attempt, never a change without one); its id derives from the
// change and its time (to the millisecond), so a write retried records
// it once; a command run again records the change again, which changes
// nothing. Its time orders it among the tenant's other records where the
// store keeps no order of its own (Elasticsearch, InTimeOrder).
func PlanChangeRecord(tenantID string, from, to audit.Plan, now time.Time) audit.Event {
	days := func(p audit.Plan) int { return int(p.Retention() / (24 * time.Hour)) }
	before, _ := json.Marshal(planDetails{Plan: from, RetentionDays: days(from)})
	after, _ := json.Marshal(planDetails{Plan: to, RetentionDays: days(to)})
	now = now.Truncate(time.Millisecond)
	e := audit.Event{Timestamp: audit.NewTimestamp(now), TenantID: tenantID, Actor: audit.SystemActor, Action: audit.ActionUpdate,
		Resource: audit.Resource{Type: audit.ResourceTenantPlan, ID: tenantID}, Category: audit.CategoryConfiguration, Outcome: audit.OutcomeSuccess,
		Reason: fmt.Sprintf("plan changed from %s (retention %d days) to %s (retention %d days)", from, days(from), to, days(to)),
		Before: before, After: after}
	e.ID = audit.DeriveID(e.Timestamp, []byte("plan:"+tenantID+":"+string(from)+":"+string(to)))
	return e
}

// ChangePlan changes a tenant's plan as the service does (issue 53:
// retention follows the plan the tenant's log records): the record of the
// change goes into the tenant's log first (PlanChangeRecord, from the
// directory's plan, or def for a tenant not in it), accepted as any event
// the writer writes, then the directory changes. The record is written
// even when the directory already says to (a plan set before changes were
// recorded is recorded so). Errors: EINVALID for a bad tenant or plan,
// and those of the writer and the directory.
func ChangePlan(ctx context.Context, w audit.EventWriter, dir audit.TenantDirectory, tenantID string, to audit.Plan, def audit.Plan, now time.Time) error {
	if err := audit.CheckPlanChange(tenantID, to); err != nil {
		return err
	}
	from, err := dir.Plan(ctx, tenantID)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		from, err = def, nil
	}
	if err != nil {
		return err
	}
	res, err := w.WriteEvents(ctx, []audit.Event{PlanChangeRecord(tenantID, from, to, now)})
	if err == nil && res[0].Status != audit.WriteCreated && res[0].Status != audit.WriteDuplicate {
		err = audit.Errorf(audit.EUNAVAILABLE, "the record of the plan change: %s %s", res[0].Status, res[0].Reason)
	}
	if err != nil {
		return err
	}
	return dir.SetPlan(ctx, tenantID, to)
}
