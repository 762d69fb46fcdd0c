package audit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Normalize puts f in its canonical form: ids and the actor's e-mail in
// lower case (they match case-insensitively), actions and resource types
// sorted without repeats (each is a set, ORed), surrounding white space
// trimmed. The parser of every transport calls it; stores read normalised
// filters only, and cursors are bound to the normalised form, so two
// spellings of one filter return the same rows and accept each other's
// cursors.
func (f *Filter) Normalize() {
	f.TenantID = NormalizeTenantID(f.TenantID)
	f.ActorID = strings.ToLower(strings.TrimSpace(f.ActorID))
	f.ActorEmail = strings.ToLower(strings.TrimSpace(f.ActorEmail))
	f.ResourceID = strings.ToLower(strings.TrimSpace(f.ResourceID))
	f.RestoredFrom = strings.ToLower(strings.TrimSpace(f.RestoredFrom))
	f.Q = strings.TrimSpace(f.Q)
	if len(f.Actions) > 0 {
		f.Actions = slices.Compact(slices.Sorted(slices.Values(f.Actions)))
	}
	if len(f.ResourceTypes) > 0 {
		f.ResourceTypes = slices.Compact(slices.Sorted(slices.Values(f.ResourceTypes)))
	}
	if len(f.EventIDs) > 0 {
		ids := make([]string, len(f.EventIDs))
		for i, id := range f.EventIDs {
			ids[i] = NormalizeID(id)
		}
		f.EventIDs = slices.Compact(slices.Sorted(slices.Values(ids)))
	}
	f.Terms = normalTerms(f.Terms)
}

// Normalized is f normalised in slices of its own, the caller's left as
// they are: the canonical form a cursor is bound to.
func (f Filter) Normalized() Filter {
	f.Actions, f.ResourceTypes = slices.Clone(f.Actions), slices.Clone(f.ResourceTypes)
	f.Normalize()
	return f
}

// normalTerms returns terms in one order, each term's values sorted
// without repeats, in new slices (the caller's are left as they are).
func normalTerms(terms []Term) []Term {
	if len(terms) == 0 {
		return nil
	}
	out := make([]Term, len(terms))
	for i, t := range terms {
		t.Values = slices.CompactFunc(slices.SortedFunc(slices.Values(t.Values), func(a, b TermValue) int {
			return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
		}), func(a, b TermValue) bool { return a == b })
		out[i] = t
	}
	slices.SortFunc(out, func(a, b Term) int { return strings.Compare(termKey(a), termKey(b)) })
	return out
}

func termKey(t Term) string { return fmt.Sprint(t.Field, t.Negate, t.Values, t.From, t.To) }

// Question is the canonical form of what f asks at time now, to tell
// whether two requests ask the same thing (a list and its histogram, the
// pages of one walk): the normalised filter with its time bounds to the
// minute (a relative range is computed anew by each request), without
// sort or page. An end at now or later is no end: the panel's histogram
// closes its window at now where its list leaves it open, and both are
// one question (issue 42).
func (f Filter) Question(now time.Time) string {
	f = f.Normalized()
	if f.To != nil && !f.To.Before(now.Truncate(time.Minute)) {
		f.To = nil
	}
	for _, t := range []**time.Time{&f.From, &f.To} {
		if *t != nil {
			m := (*t).Truncate(time.Minute)
			*t = &m
		}
	}
	b, _ := json.Marshal(f)
	return string(b)
}
