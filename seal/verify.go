package seal

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Finding is one thing a verification found wrong.
type Finding struct {
	Kind    string // altered, malformed, misindexed, missing, repeated, unsealed, tree, reordered, rewritten
	Index   int64  // the leaf, -1 for none
	EventID string
	Detail  string
}

func (f Finding) String() string {
	if f.Index < 0 {
		return fmt.Sprintf("%-8s %s %s", f.Kind, f.EventID, f.Detail)
	}
	return fmt.Sprintf("%-8s #%d %s %s", f.Kind, f.Index, f.EventID, f.Detail)
}

// Report is what Verify checked and found.
type Report struct {
	// Checkpoint is the last checkpoint checked; First the first, the
	// one every event read was judged against (later ones are read only
	// while events wait to be sealed).
	Checkpoint, First audit.Checkpoint
	Events            int64 // stored events checked against their leaves
	// Expired counts the leaves whose events retention deleted, as
	// sealed retention records say (no finding).
	Expired  int64
	Findings []Finding
}

// Verify checks a tenant's log in its store as Check does, with no grace:
// an event stored but not sealed yet is named unsealed.
func Verify(ctx context.Context, st audit.LogStore, scan audit.EventScanner, tenant string, keys audit.LogKeys) (Report, error) {
	return Check(ctx, StoreSource(st, scan, tenant), tenant, keys, 0)
}

// Check verifies a tenant's log from src: the latest checkpoint is
// signed by a pinned key and is the tenant's; the tree rebuilt from the
// leaves has the checkpoint's root (else the leaves were rewritten or
// reordered); each leaf's event remains (else missing, unless a sealed
// retention record says retention deleted it) and still has the leaf's
// hash (else altered: edited, back-dated, swapped); and every event that
// remains is a leaf (else unsealed: inserted behind the service). An
// event stored after the checkpoint was signed is no leaf yet: for up to
// grace, Check waits for later checkpoints, checks that each extends the
// tree it rebuilt, and names unsealed only the events still in no leaf.
// It holds each event's id and leaf hash, and the tree's hashes, in
// memory. Errors: EUNAUTHORIZED for a checkpoint no pinned key verifies
// or of another log, ENOTFOUND for a log without one, EUNAVAILABLE.
func Check(ctx context.Context, src Source, tenant string, keys audit.LogKeys, grace time.Duration) (Report, error) {
	cp, err := openCheckpoint(ctx, src, tenant, keys)
	if err != nil {
		return Report{}, err
	}
	stored, retention, aggregates, err := readStored(ctx, src)
	if err != nil {
		return Report{}, err
	}
	c := &checker{src: src, tenant: tenant, stored: stored, mem: &memHashes{}, rep: Report{Checkpoint: cp, First: cp}}
	for _, f := range aggregates {
		if e := stored[f.EventID]; f.EventID != "" && e != nil && e.bad == "" {
			e.misindexed = append(e.misindexed, f.Detail) // named at the event's leaf
			continue
		}
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "misindexed", Index: -1, EventID: f.Where, Detail: f.Detail})
	}
	if err := c.extend(ctx, cp, true); err != nil {
		return c.rep, err
	}
	for deadline := time.Now().Add(grace); c.unsealed() > 0 && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return c.rep, ctx.Err()
		case <-time.After(time.Second):
		}
		next, err := openCheckpoint(ctx, src, tenant, keys)
		if err != nil {
			return c.rep, err
		}
		if next.Size > c.rep.Checkpoint.Size {
			if err := c.extend(ctx, next, false); err != nil {
				return c.rep, err
			}
		}
	}
	c.rep.excuseExpired(retention, stored)
	for id, e := range stored {
		switch {
		case e.leaf < 0 && e.bad != "":
			c.rep.Findings = append(c.rep.Findings, Finding{Kind: "malformed", Index: -1, EventID: id, Detail: e.bad + " (and in no leaf)"})
		case e.leaf < 0:
			c.rep.Findings = append(c.rep.Findings, Finding{Kind: "unsealed", Index: -1, EventID: id, Detail: "stored but in no leaf (inserted behind the service, or not sealed yet)"})
		}
	}
	sort.Slice(c.rep.Findings, func(a, b int) bool { return c.rep.Findings[a].EventID < c.rep.Findings[b].EventID })
	return c.rep, nil
}

// openCheckpoint reads src's latest checkpoint and verifies it.
func openCheckpoint(ctx context.Context, src Source, tenant string, keys audit.LogKeys) (audit.Checkpoint, error) {
	signed, err := src.SignedCheckpoint(ctx, keys.Cosigned())
	if err != nil {
		return audit.Checkpoint{}, err
	}
	cp, err := keys.Open(signed)
	if err != nil {
		return cp, err
	}
	if want := audit.LogOrigin(keys.Name(), tenant); cp.Origin != want {
		return cp, audit.Errorf(audit.EUNAUTHORIZED, "the checkpoint is of the log %s, not of %s", cp.Origin, want)
	}
	return cp, nil
}

// checker rebuilds a tenant's tree leaf by leaf and judges each leaf.
type checker struct {
	src    Source
	tenant string
	stored map[string]*storedEvent
	mem    *memHashes
	rep    Report
}

// extend reads the leaves from the rebuilt tree's size up to cp's, and
// checks cp's root. The first checkpoint's leaves are all judged; a later
// one's leaves judge only the events read before (the others were stored
// after the read, and are not this verification's).
func (c *checker) extend(ctx context.Context, cp audit.Checkpoint, first bool) error {
	from := int64(0)
	if !first {
		from = c.rep.Checkpoint.Size
	}
	for i := from; i < cp.Size; {
		leaves, err := c.src.Leaves(ctx, i, 1000)
		if err != nil {
			return err
		}
		if len(leaves) == 0 {
			return audit.Errorf(audit.EINTERNAL, "the log of %s has no leaf %d under its checkpoint of %d", c.tenant, i, cp.Size)
		}
		for _, l := range leaves[:min(int64(len(leaves)), cp.Size-i)] {
			if l.Index != i {
				return audit.Errorf(audit.EINTERNAL, "the leaves of %s go from %d to %d: not the tree's order", c.tenant, i-1, l.Index)
			}
			if _, ok := c.stored[l.EventID]; first || ok {
				c.rep.checkLeaf(l, c.stored)
			}
			hs, err := tlog.StoredHashesForRecordHash(l.Index, l.Hash, c.mem)
			if err != nil {
				return audit.Wrap(audit.EINTERNAL, err, "rebuilding the tree of %s", c.tenant)
			}
			c.mem.store(tlog.StoredHashIndex(0, l.Index), hs)
			i = l.Index + 1
		}
	}
	c.rep.Checkpoint = cp
	if root, err := tlog.TreeHash(cp.Size, c.mem); err != nil || root != cp.Root {
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "tree", Index: -1,
			Detail: fmt.Sprintf("the %d leaves make root %s, the signed checkpoint says %s", cp.Size, root, cp.Root)})
		if ts, ok := c.src.(TileSource); ok {
			c.nameDiffering(ctx, cp, ts)
		}
	}
	return nil
}

// unsealed counts the events read that are in no leaf so far.
func (c *checker) unsealed() int {
	n := 0
	for _, e := range c.stored {
		if e.leaf < 0 {
			n++
		}
	}
	return n
}

// storedEvent is a stored event's leaf hashes (of its entry, and of the
// v1 format: a leaf holds it when its hash is either), and the leaf that
// holds it (-1 before one does) and whether it matches it; bad, for a row
// that is no well-formed event, says why (it has no hash).
type storedEvent struct {
	hashes [2]tlog.Hash
	leaf   int64
	intact bool
	bad    string
	// misindexed names what the store keeps beside the event for queries
	// and that disagrees with it (audit.StoredRow.Misindexed).
	misindexed []string
}

// readStored reads the stored events of src by their ids, with their
// leaf hashes, and the retention records among them. A source that reads
// the store's rows themselves (RowSource) gives every row, a malformed
// one as a storedEvent with bad set: it is named, and the others are
// still checked.
func readStored(ctx context.Context, src Source) (map[string]*storedEvent, map[string][]audit.LeafRange, []audit.IndexFinding, error) {
	stored := map[string]*storedEvent{}
	retention := map[string][]audit.LeafRange{} // by record id
	take := func(rows []audit.StoredRow) error {
		for _, r := range rows {
			if r.Err != nil {
				stored[r.Key] = &storedEvent{leaf: -1, bad: audit.ErrorMessage(r.Err)}
				continue
			}
			stored[r.Event.ID] = &storedEvent{hashes: audit.LeafHashes(r.Event), leaf: -1, misindexed: r.Misindexed}
			if lr, ok := audit.RetentionLeaves(r.Event); ok {
				retention[r.Event.ID] = lr
			}
		}
		return nil
	}
	if rs, ok := src.(RowSource); ok {
		aggregates, err := rs.Rows(ctx, take)
		return stored, retention, aggregates, err
	}
	return stored, retention, nil, eventRows(ctx, src, take)
}

// excuseExpired takes out of the findings each missing event whose leaf
// a retention record says retention deleted, and counts it as Expired.
// Only records that are themselves sealed and intact count: a record
// inserted or edited behind the service excuses nothing.
func (rep *Report) excuseExpired(records map[string][]audit.LeafRange, stored map[string]*storedEvent) {
	var ranges []audit.LeafRange
	for id, r := range records {
		if e := stored[id]; e != nil && e.leaf >= 0 && e.intact {
			ranges = append(ranges, r...)
		}
	}
	kept := rep.Findings[:0]
	for _, f := range rep.Findings {
		if f.Kind == "missing" && inRanges(ranges, f.Index) {
			rep.Expired++
			continue
		}
		kept = append(kept, f)
	}
	rep.Findings = kept
}

func inRanges(rs []audit.LeafRange, i int64) bool {
	for _, r := range rs {
		if r.From <= i && i < r.To {
			return true
		}
	}
	return false
}

// checkLeaf checks leaf l against the stored events: the tree is rebuilt
// from the stored leaves, so a rewritten leaf table shows as a wrong
// root, and each event is judged on its own.
func (rep *Report) checkLeaf(l audit.Leaf, stored map[string]*storedEvent) {
	e, ok := stored[l.EventID]
	switch {
	case !ok:
		rep.Findings = append(rep.Findings, Finding{Kind: "missing", Index: l.Index, EventID: l.EventID, Detail: "in the log, no longer stored"})
		return
	case e.leaf >= 0:
		rep.Findings = append(rep.Findings, Finding{Kind: "repeated", Index: l.Index, EventID: l.EventID, Detail: fmt.Sprintf("already leaf #%d", e.leaf)})
		return
	case e.bad != "":
		rep.Findings = append(rep.Findings, Finding{Kind: "malformed", Index: l.Index, EventID: l.EventID, Detail: e.bad})
		e.leaf = l.Index
		return
	case e.hashes[0] != l.Hash && e.hashes[1] != l.Hash: // neither an entry (v2) nor a v1 leaf of it
		rep.Findings = append(rep.Findings, Finding{Kind: "altered", Index: l.Index, EventID: l.EventID, Detail: "stored content differs from the sealed leaf"})
	case len(e.misindexed) > 0:
		rep.Findings = append(rep.Findings, Finding{Kind: "misindexed", Index: l.Index, EventID: l.EventID,
			Detail: "the sealed event is intact, but what the store keeps beside it for queries disagrees with it: " + strings.Join(e.misindexed, ", ")})
		e.intact = true
	default:
		e.intact = true
	}
	e.leaf = l.Index
	rep.Events++
}

// memHashes is a tree's stored hashes in memory, by stored-hash index:
// leaves come in order, so the indexes are dense and a slice holds them
// (32 bytes each, about 64 MB for a million leaves).
type memHashes []tlog.Hash

// store sets the hashes from index at.
func (m *memHashes) store(at int64, hs []tlog.Hash) {
	if need := at + int64(len(hs)); int64(len(*m)) < need {
		*m = append(*m, make([]tlog.Hash, need-int64(len(*m)))...)
	}
	copy((*m)[at:], hs)
}

// ReadHashes returns the hashes at ix; one not stored is the zero hash,
// which makes a root that does not match.
func (m *memHashes) ReadHashes(ix []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(ix))
	for i, x := range ix {
		if x >= 0 && x < int64(len(*m)) {
			out[i] = (*m)[x]
		}
	}
	return out, nil
}
