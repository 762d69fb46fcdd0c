package audit

import (
	"encoding/json"
	"fmt"
	"time"
)

// ResourceTenantPlan is the resource type of the record, in a tenant's
// log, of a change of its plan.
const ResourceTenantPlan = "tenant_plan"

// planDetails is a plan change record's before and after.
type planDetails struct {
	Plan          Plan `json:"plan"`
	RetentionDays int  `json:"retentionDays"`
}

// PlanChangeRecord is the system event that records in the tenant's log
// a change of its plan, and so of its retention: a verifier who sees
// leaves deleted under a shorter retention (retention records name the
// plan) finds in the log when the plan changed, and from what. It is
// written before the change (a change that then fails leaves a record of
// an attempt, never a change without one); its id derives from the
// change and the minute (its time is the minute's start), so a command
// retried at once records it once.
func PlanChangeRecord(tenantID string, from, to Plan, now time.Time) Event {
	days := func(p Plan) int { return int(p.Retention() / (24 * time.Hour)) }
	before, _ := json.Marshal(planDetails{Plan: from, RetentionDays: days(from)})
	after, _ := json.Marshal(planDetails{Plan: to, RetentionDays: days(to)})
	now = now.Truncate(time.Minute) // a retry within the minute is the same event
	e := Event{Timestamp: NewTimestamp(now), TenantID: tenantID, Actor: SystemActor, Action: ActionUpdate,
		Resource: Resource{Type: ResourceTenantPlan, ID: tenantID}, Category: CategoryConfiguration, Outcome: OutcomeSuccess,
		Reason: fmt.Sprintf("plan changed from %s (retention %d days) to %s (retention %d days)", from, days(from), to, days(to)),
		Before: before, After: after}
	e.ID = DeriveID(e.Timestamp, []byte("plan:"+tenantID+":"+string(from)+":"+string(to)))
	return e
}
