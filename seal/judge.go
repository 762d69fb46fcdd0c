package seal

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
	"golang.org/x/mod/sumdb/tlog"
)

// row is what the check keeps of a stored row: its leaf hashes (of its
// entry, and of the v1 format: a leaf holds it when its hash is either),
// or, for a row that is no well-formed event, why (bad); what the store
// keeps beside it for queries and disagrees with it
// (vlog.StoredRow.Misindexed); and, for a retention record, the leaves
// it says retention deleted.
type row struct {
	id         string
	tenant     string
	hashes     [2]tlog.Hash
	digest     [32]byte
	tag        []byte
	bad        string
	misindexed []string
	retention  []retention.LeafRange
	// statement is the row's event when it states the tenant's plan (a
	// plan change or a retention record) or a legal hold's step, for the
	// authorization check.
	statement *audit.Event
}

func rowOf(sr *vlog.StoredRow) row {
	if sr.Err != nil {
		return row{id: sr.Key, bad: audit.ErrorMessage(sr.Err)}
	}
	r := row{id: sr.Event.ID, tenant: sr.Event.TenantID, tag: sr.Tag, misindexed: sr.Misindexed}
	r.hashes, r.digest = vlog.LeafHashesAndDigest(sr.Event)
	r.retention, _ = retention.Leaves(sr.Event)
	_, isHold := hold.Of(&sr.Event)
	_, _, _, isRecord := retention.RecordOf(&sr.Event)
	if _, _, ok := retention.PlanChangeOf(&sr.Event); ok || isRecord || isHold {
		e := sr.Event
		r.statement = &e
	}
	return r
}

// readRows reads the stored rows once, and judges each against the leaf
// of its event, or holds it as pending when no leaf read has it (yet). A
// source that reads the store's rows themselves (RowSource) gives every
// row, a malformed one included, and what the store keeps of many rows
// at once (the returned findings).
func (c *checker) readRows(ctx context.Context) ([]vlog.IndexFinding, error) {
	take := func(rows []vlog.StoredRow) error {
		for i := range rows {
			c.take(rowOf(&rows[i]))
		}
		return nil
	}
	if rs, ok := c.src.(RowSource); ok {
		return rs.Rows(ctx, take)
	}
	return nil, eventRows(ctx, c.src, take)
}

// take judges one stored row, or holds it as pending.
func (c *checker) take(r row) {
	k := keyOf(r.id)
	j, ok := c.leaves.at(k)
	switch {
	case !ok && c.pending[k] != nil:
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "repeated", Index: -1, EventID: r.id, Detail: "stored twice, and in no leaf"})
	case !ok:
		c.pending[k] = &r
	case c.leaves.state[j] != unjudged:
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "repeated", Index: j, EventID: r.id, Detail: "stored twice: another row has the same id"})
	default:
		c.judge(j, &r)
	}
}

// judge judges leaf j's event by its stored row: the tree is rebuilt
// from the stored leaves, so a rewritten leaf table shows as a wrong
// root, and each event is judged on its own.
func (c *checker) judge(j int64, r *row) {
	t := c.leaves
	switch h := t.hashes[j]; {
	case r.bad != "":
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "malformed", Index: j, EventID: r.id, Detail: r.bad})
		t.state[j] = malformed
		return
	case r.hashes[0] != h && r.hashes[1] != h: // neither an entry (v2) nor a v1 leaf of it
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "altered", Index: j, EventID: r.id, Detail: "stored content differs from the sealed leaf"})
		t.state[j] = altered
	case len(r.misindexed) > 0:
		c.misindexed(j, r.id, strings.Join(r.misindexed, ", ")) // its state: misindexed
	default:
		t.state[j] = intact
	}
	if t.judged(j) {
		c.retained = append(c.retained, r.retention...)
		if r.statement != nil {
			c.statements = append(c.statements, statement{leaf: j, event: r.statement})
		}
	}
	c.rep.Events++
}

// misindexed names leaf j's intact event as misindexed for detail, in
// the one finding of that leaf.
func (c *checker) misindexed(j int64, id, detail string) {
	if at, ok := c.misAt[j]; ok {
		c.rep.Findings[at].Detail += ", " + detail
		return
	}
	c.leaves.state[j] = misindexed
	c.misAt[j] = len(c.rep.Findings)
	c.rep.Findings = append(c.rep.Findings, Finding{Kind: "misindexed", Index: j, EventID: id,
		Detail: "the sealed event is intact, but what the store keeps beside it for queries disagrees with it: " + detail})
}

// attach names what the store keeps of many rows at once and disagrees
// with them: at the leaf of the event it names, when that event is
// intact; covered by the finding of an altered one; on its own
// otherwise.
func (c *checker) attach(found []vlog.IndexFinding) {
	for _, f := range found {
		if f.EventID != "" {
			k := keyOf(f.EventID)
			if j, ok := c.leaves.at(k); ok && c.leaves.judged(j) {
				c.misindexed(j, f.EventID, f.Detail)
				continue
			} else if ok && c.leaves.state[j] == altered {
				continue
			}
			if r := c.pending[k]; r != nil && r.bad == "" {
				r.misindexed = append(r.misindexed, f.Detail)
				continue
			}
		}
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "misindexed", Index: -1, EventID: f.Where, Detail: f.Detail})
	}
}

// finish names the leaves of the first checkpoint whose events no row
// had (missing, unless a sealed and intact retention record says
// retention deleted them: Expired), and the rows in no leaf.
func (c *checker) finish(ctx context.Context) error {
	c.authorize()
	expired := newCoverage(c.retained)
	var missing []int64
	for i := range min(c.rep.First.Size, c.leaves.size()) {
		switch {
		case c.leaves.state[i] != unjudged:
		case expired.covers(i):
			c.rep.Expired++
		default:
			missing = append(missing, i)
		}
	}
	if err := c.nameMissing(ctx, missing); err != nil {
		return err
	}
	accept := acceptorOf(c.src)
	for _, r := range c.pending {
		if r.bad != "" {
			c.rep.Findings = append(c.rep.Findings, Finding{Kind: "malformed", Index: -1, EventID: r.id, Detail: r.bad + " (and in no leaf)"})
			continue
		}
		c.rep.Findings = append(c.rep.Findings, unsealedFinding(r, accept))
	}
	return nil
}

// unsealedFinding names a row in no leaf: with the acceptance key (a
// verifier of the store, configured as the service is), unaccepted when
// its tag does not verify (inserted or rewritten behind the service: the
// sealer never seals it), else unsealed (accepted, not sealed yet);
// without it, unsealed, either.
func unsealedFinding(r *row, accept *vlog.Acceptor) Finding {
	if accept == nil {
		return Finding{Kind: "unsealed", Index: -1, EventID: r.id, Detail: "stored but in no leaf (inserted behind the service, or not sealed yet)"}
	}
	if err := accept.Check(r.tenant, r.id, r.digest, r.tag); err != nil {
		return Finding{Kind: "unaccepted", Index: -1, EventID: r.id, Detail: "stored but never accepted by the service, and never sealed: " + audit.ErrorMessage(err)}
	}
	return Finding{Kind: "unsealed", Index: -1, EventID: r.id, Detail: "accepted by the service, stored, and in no leaf yet"}
}

// statement is an intact record that states the tenant's plan, at its
// leaf.
type statement struct {
	leaf  int64
	event *audit.Event
}

// authorize checks each retention record against the plan in force when
// it was written, as the records before it in the log state it
// (retention.PlanInForce, audit.Authorize), and names each the log
// does not authorize (unauthorized). A record with no statement before
// it (the log's plan changes were deleted in their turn, or there were
// none) is checked against its own plan: its retention is that plan's,
// and it deleted nothing younger.
func (c *checker) authorize() {
	sort.Slice(c.statements, func(a, b int) bool { return c.statements[a].leaf < c.statements[b].leaf })
	var before []audit.Event
	for _, s := range c.statements {
		if plan, _, _, ok := retention.RecordOf(s.event); ok {
			inForce := retention.PlanInForce(before, plan)
			if why := retention.Authorize(s.event, inForce); why != "" {
				c.rep.Findings = append(c.rep.Findings, Finding{Kind: "unauthorized", Index: s.leaf, EventID: s.event.ID,
					Detail: "a retention deletion the log does not authorize: " + why})
			}
			if why := ignoredHolds(s.event, before); why != "" {
				c.rep.Findings = append(c.rep.Findings, Finding{Kind: "unauthorized", Index: s.leaf, EventID: s.event.ID,
					Detail: "a retention deletion the log does not authorize: " + why})
			}
		}
		before = append(before, *s.event)
	}
}

// ignoredHolds names the legal holds the log records in force when the
// retention record e was written (its hold records before it, folded, at
// e's time) that e's pass did not honour (retention.HoldsOf), or "".
// A pass that ignores a hold may have deleted what the hold kept; the
// events are gone, so the record's own statement is what is checked.
func ignoredHolds(e *audit.Event, before []audit.Event) string {
	honoured, _ := retention.HoldsOf(*e)
	var ignored []string
	for _, h := range hold.InForce(hold.Fold(before), e.Timestamp.Time) {
		if !slices.Contains(honoured, h.ID) {
			ignored = append(ignored, fmt.Sprintf("%s (%q)", h.ID, h.Matter))
		}
	}
	if len(ignored) == 0 {
		return ""
	}
	return "it ignored the legal holds in force " + strings.Join(ignored, ", ")
}

// nameMissing reads the leaves at the indexes missing (ascending) again,
// for the ids of their events, and names each missing: the table keeps
// no ids, and a log whose events are all there reads nothing more.
func (c *checker) nameMissing(ctx context.Context, missing []int64) error {
	for k := 0; k < len(missing); {
		leaves, err := c.src.Leaves(ctx, missing[k], 1000)
		if err != nil {
			return err
		}
		if len(leaves) == 0 || leaves[0].Index != missing[k] {
			return audit.Errorf(audit.EINTERNAL, "the log of %s no longer lists leaf %d", c.tenant, missing[k])
		}
		for _, l := range leaves {
			if k < len(missing) && l.Index == missing[k] {
				c.rep.Findings = append(c.rep.Findings, Finding{Kind: "missing", Index: l.Index, EventID: l.EventID, Detail: "in the log, no longer stored"})
				k++
			}
		}
	}
	return nil
}

// coverage is leaf ranges, sorted and merged, to ask of a leaf whether
// one of them holds it in log(ranges) steps.
type coverage []retention.LeafRange

func newCoverage(rs []retention.LeafRange) coverage { return coverage(retention.MergeRanges(rs)) }

func (c coverage) covers(i int64) bool {
	k := sort.Search(len(c), func(k int) bool { return c[k].To > i })
	return k < len(c) && c[k].From <= i
}
