package retention

import "github.com/auditlog/auditlog/audit"

// Pass is what one retention pass did (the embedded store's
// purge, the Elasticsearch lifecycle pass): how many events it deleted,
// and what it found and would not act on, each to be named (logged as an
// error and counted): an event it kept although its column said it had
// expired, because the stored event is not the one the service accepted
// (Kept), and a tenant whose directory plan differed from the plan its
// log records, which it restored (Restored).
type Pass struct {
	Deleted int64
	// Held counts the events past retention that a legal hold kept
	// (issue 55).
	Held     int64
	Kept     []Kept
	Restored []PlanRestored
}

// Kept is an event a retention pass did not delete.
type Kept struct {
	TenantID, EventID, Reason string
}

// PlanRestored is a tenant whose directory plan was not the plan its log
// records: the pass put the log's plan back.
type PlanRestored struct {
	TenantID  string
	Directory audit.Plan // what the directory said
	Logged    audit.Plan // what the log records (or the default plan)
}

// Problems are what the pass would not act on, one message each, for
// the error log: a kept event, a restored plan.
func (p Pass) Problems() (kept, restored []string) {
	for _, k := range p.Kept {
		kept = append(kept, "retention kept event "+k.EventID+" of tenant "+k.TenantID+", past its cut-off by its column, because "+k.Reason)
	}
	for _, r := range p.Restored {
		restored = append(restored, "the directory said tenant "+r.TenantID+" is on the "+string(r.Directory)+" plan, which its log does not record: the plan its log records, "+
			string(r.Logged)+", is back (edited behind the service, or set before plan changes were recorded: `auditlog tenant set-plan` records one)")
	}
	return kept, restored
}
