package retention

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Retention authorized by the log (issue 53): a tenant's plan, and so
// its retention, is what the tenant's own log records, not what a row of
// the store says. The plan in force is the plan of the latest plan change
// record (PlanChangeRecord) the service accepted, or, when the log holds
// none, the deployment's default plan (configuration). The retention pass
// deletes under that plan only; the directory's plan, which reads and
// writes use, is restored to it when it differs (edited behind the
// service); and a verifier checks every retention record against the plan
// changes the log holds before it.

// PlanChangeOf reads a plan change record: the plans before and after
// (ok false for any other event).
func PlanChangeOf(e *audit.Event) (from, to audit.Plan, ok bool) {
	if e.Resource.Type != audit.ResourceTenantPlan || e.Actor.ID != audit.SystemActor.ID {
		return "", "", false
	}
	var b, a planDetails
	if json.Unmarshal(e.Before, &b) != nil || json.Unmarshal(e.After, &a) != nil || !a.Plan.Valid() {
		return "", "", false
	}
	return b.Plan, a.Plan, true
}

// PlanInForce is the plan of a tenant whose log holds records, in the
// order the service accepted them (each the service's own: the caller
// checked each with Acceptor.Authentic): the plan the last of its plan
// change records went to, or the plan the last of its retention records
// deleted under, whichever came last, since retention deletes plan
// change records in their turn and each retention record states the plan
// in force; def when the log holds neither.
func PlanInForce(ordered []audit.Event, def audit.Plan) audit.Plan {
	plan := def
	for i := range ordered {
		if _, to, ok := PlanChangeOf(&ordered[i]); ok {
			plan = to
		} else if p, _, _, ok := RecordOf(&ordered[i]); ok && p.Valid() {
			plan = p
		}
	}
	return plan
}

// InTimeOrder orders records (plan change and retention records) by their
// time, for a store that keeps no acceptance order (Elasticsearch, for
// records not sealed yet: the sealed ones are in leaf order).
func InTimeOrder(records []audit.Event) []audit.Event {
	out := slices.Clone(records)
	slices.SortStableFunc(out, func(a, b audit.Event) int { return a.Timestamp.Compare(b.Timestamp.Time) })
	return out
}

// RecordOf reads a retention record (ok false for any other
// event): the plan and retention it deleted under and its cut-off.
func RecordOf(e *audit.Event) (plan audit.Plan, days int, before time.Time, ok bool) {
	if e.Resource.Type != audit.ResourceLogRetention || e.Actor.ID != audit.SystemActor.ID || len(e.After) == 0 {
		return "", 0, time.Time{}, false
	}
	var det retentionDetails
	if json.Unmarshal(e.After, &det) != nil {
		return "", 0, time.Time{}, false
	}
	return det.Plan, det.RetentionDays, det.DeletedBefore.Time, true
}

// Authorize checks a retention record e against the plan in
// force when it was written (PlanInForce of the records before it in the
// log): the plan it names is that plan, with that plan's retention, and it
// deleted nothing younger than the retention at its time. It returns why
// not, or "" when e is authorized.
func Authorize(e *audit.Event, inForce audit.Plan) string {
	plan, days, before, ok := RecordOf(e)
	if !ok {
		return "not a retention record"
	}
	want := int(inForce.Retention() / (24 * time.Hour))
	switch {
	case plan != inForce:
		return fmt.Sprintf("it deleted under the %s plan, and the log's plan in force was %s (%d days)", plan, inForce, want)
	case days != want:
		return fmt.Sprintf("it deleted under a retention of %d days, and the %s plan keeps %d", days, plan, want)
	case before.After(e.Timestamp.Time.Add(-inForce.Retention())):
		return fmt.Sprintf("it deleted events up to %s, younger than the %d days of the %s plan at %s", before.UTC().Format(audit.TimestampLayout), want, plan, e.Timestamp.UTC().Format(audit.TimestampLayout))
	}
	return ""
}
