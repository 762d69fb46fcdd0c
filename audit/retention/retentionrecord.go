package retention

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Retention without lies: when a store's retention deletes a tenant's
// expired events, it writes, in the same step, a system event into that
// tenant's log that says what went: under which plan, everything before
// which instant, how many events, and the leaves of the verifiable log
// that held them (ranges of leaf indexes). The record is sealed like any
// event, so a verifier tells a deletion by policy (a leaf without its
// event, inside the ranges of a sealed, intact record) from one behind
// the service (any other leaf without its event).

// LeafRange is the leaf indexes From to To-1.
type LeafRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Deletion is what one retention pass deleted of one tenant.
type Deletion struct {
	TenantID string
	Plan     audit.Plan
	// Before is the cut-off: the events before it were deleted.
	Before time.Time
	// Deleted counts the events deleted; Leaves are the leaves that held
	// the sealed ones (in order), and those that the retention records it
	// deleted said retention had deleted (coverage carries forward, so a
	// verifier excuses every leaf retention deleted, however many passes
	// ago); Unsealed counts those no leaf held yet (they never will be).
	Deleted  int64
	Leaves   []LeafRange
	Unsealed int64
	// Holds are the ids of the legal holds in force that the pass kept
	// events for (issue 55): a verifier checks them against the holds the
	// log records in force at the record's time (HoldsOf).
	Holds []string
	// Source, when set, names what the pass deleted (a backing index): two
	// deletions of one pass with the same cut-off and no leaves (events
	// never sealed) are then two records, not one id with two contents.
	Source string
}

// maxRangesPerRecord keeps a record far below MaxEventBytes.
const maxRangesPerRecord = 2000

// retentionDetails is a record's after.
type retentionDetails struct {
	Plan          audit.Plan      `json:"plan"`
	RetentionDays int             `json:"retentionDays"`
	DeletedBefore audit.Timestamp `json:"deletedBefore"`
	Deleted       int64           `json:"deleted"`
	Unsealed      int64           `json:"unsealed"`
	Leaves        []LeafRange     `json:"leaves"`
	Holds         []string        `json:"holds,omitempty"`
}

// Records returns the events that record d at now: one, or more when its
// leaf ranges are many (each holds some; the first holds the counts).
// Their ids derive from what they record, so a pass retried after a crash
// writes the same records.
func (d Deletion) Records(now time.Time) []audit.Event {
	var out []audit.Event
	for i := 0; i == 0 || i < len(d.Leaves); i += maxRangesPerRecord {
		part := d.Leaves[min(i, len(d.Leaves)):min(i+maxRangesPerRecord, len(d.Leaves))]
		det := retentionDetails{Plan: d.Plan, RetentionDays: int(d.Plan.Retention() / (24 * time.Hour)), DeletedBefore: audit.NewTimestamp(d.Before), Leaves: part, Holds: d.Holds}
		if i == 0 {
			det.Deleted, det.Unsealed = d.Deleted, d.Unsealed
		}
		after, _ := json.Marshal(det)
		e := audit.Event{Timestamp: audit.NewTimestamp(now), TenantID: d.TenantID, Actor: audit.SystemActor, Action: audit.ActionDelete,
			Resource: audit.Resource{Type: audit.ResourceLogRetention, ID: d.TenantID}, Category: audit.CategoryConfiguration, Outcome: audit.OutcomeSuccess,
			Reason: fmt.Sprintf("retention of the %s plan (%d days): %d events before %s deleted", d.Plan, det.RetentionDays, d.Deleted, det.DeletedBefore),
			After:  after}
		var key strings.Builder
		fmt.Fprintf(&key, "retention:%s:%d:%d", d.TenantID, d.Before.UnixMilli(), i)
		if d.Source != "" {
			key.WriteString(":" + d.Source)
		}
		for _, r := range part {
			key.WriteString(":" + strconv.FormatInt(r.From, 10) + "-" + strconv.FormatInt(r.To, 10))
		}
		e.ID = audit.DeriveID(e.Timestamp, []byte(key.String()))
		out = append(out, e)
	}
	return out
}

// Leaves returns the leaf ranges a retention record says went
// (ok false for any other event).
func Leaves(e audit.Event) ([]LeafRange, bool) {
	if e.Resource.Type != audit.ResourceLogRetention || e.Actor.ID != audit.SystemActor.ID || len(e.After) == 0 {
		return nil, false
	}
	var det retentionDetails
	if err := json.Unmarshal(e.After, &det); err != nil {
		return nil, false
	}
	return det.Leaves, true
}

// HoldsOf returns the legal holds a retention record says its pass
// honoured (ok false for any other event).
func HoldsOf(e audit.Event) ([]string, bool) {
	if _, _, _, ok := RecordOf(&e); !ok {
		return nil, false
	}
	var det retentionDetails
	if err := json.Unmarshal(e.After, &det); err != nil {
		return nil, false
	}
	return det.Holds, true
}

// MergeRanges sorts ranges and merges those that overlap or touch.
func MergeRanges(rs []LeafRange) []LeafRange {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b LeafRange) int { return cmp.Compare(a.From, b.From) })
	var out []LeafRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		if r.From < r.To {
			out = append(out, r)
		}
	}
	return out
}

// LeafRanges folds sorted leaf indexes into ranges.
func LeafRanges(sorted []int64) []LeafRange {
	var out []LeafRange
	for _, x := range sorted {
		if n := len(out); n > 0 && out[n-1].To == x {
			out[n-1].To++
			continue
		}
		out = append(out, LeafRange{From: x, To: x + 1})
	}
	return out
}
