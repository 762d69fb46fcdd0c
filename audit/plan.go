package audit

import (
	"time"
)

// Plan is a tenant's subscription plan; it sets the retention of the
// tenant's log (spec §8).
type Plan string

// The plans of spec §8.
const (
	PlanStarter    Plan = "starter"
	PlanPro        Plan = "pro"
	PlanEnterprise Plan = "enterprise"
)

// Plans lists every plan, shortest retention first.
var Plans = []Plan{PlanStarter, PlanPro, PlanEnterprise}

// Valid reports whether p is a known plan.
func (p Plan) Valid() bool { return p == PlanStarter || p == PlanPro || p == PlanEnterprise }

// Retention is how long the plan keeps events (spec §8): Starter 30 days,
// Pro 1 year, Enterprise 7 years (2557 days, counting the leap days).
func (p Plan) Retention() time.Duration {
	const day = 24 * time.Hour
	switch p {
	case PlanStarter:
		return 30 * day
	case PlanPro:
		return 365 * day
	case PlanEnterprise:
		return 2557 * day
	}
	return 0
}

// ParsePlan returns the plan named s, or EINVALID.
func ParsePlan(s string) (Plan, error) {
	p := Plan(s)
	if !p.Valid() {
		return "", Errorf(EINVALID, "plan %q: want starter, pro or enterprise", s)
	}
	return p, nil
}

// CheckPlanChange validates the arguments of TenantDirectory.SetPlan: an
// EINVALID error for a tenant id that is not a UUID or an unknown plan.
func CheckPlanChange(tenantID string, plan Plan) error {
	if !ValidUUID(tenantID) {
		return Errorf(EINVALID, "tenant %q is not a UUID", tenantID)
	}
	_, err := ParsePlan(string(plan))
	return err
}
