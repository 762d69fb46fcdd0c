// Package retention is the domain of what the log authorizes retention
// to delete, split from the domain root (issue 54): a tenant's plan
// changes as records in its own log (PlanChangeRecord, ChangePlan) and
// the plan in force at any time by that history (PlanInForce); the
// record of each deletion with the leaves it removed (Deletion, Leaves),
// checked against that history (Authorize); one pass of the purge over
// the stores (Pass); and the gate that refuses to store an event already
// past its tenant's retention (Gate). The plan itself and its retention
// period (audit.Plan, audit.Visible, audit.Cutoff) stay in the root,
// which every query reads them from.
package retention
