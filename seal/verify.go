package seal

import (
	"context"
	"fmt"
	"sort"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Finding is one thing a verification found wrong.
type Finding struct {
	Kind    string // altered, missing, repeated, unsealed, tree
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
	Checkpoint audit.Checkpoint
	Events     int64 // stored events checked against their leaves
	// Expired counts the leaves whose events retention deleted, as
	// sealed retention records say (no finding).
	Expired  int64
	Findings []Finding
}

// Verify checks a tenant's log against its store: the latest checkpoint
// is signed by the pinned verifier; the tree rebuilt from the stored
// leaves has the checkpoint's root (else the leaves were rewritten or
// reordered); each leaf's event is still stored (else missing) and still
// has the leaf's hash (else altered: edited, back-dated, swapped); and
// every stored event of the tenant is a leaf (else unsealed: inserted
// behind the service, or not sealed yet). It reads the tenant's events
// once (holding each one's id and leaf hash) and the leaves page by page.
// Errors: EUNAUTHORIZED for a checkpoint the key does not verify,
// EUNAVAILABLE.
func Verify(ctx context.Context, st audit.LogStore, scan audit.EventScanner, tenant string, v note.Verifier) (Report, error) {
	ls, err := st.LogState(ctx, tenant)
	if err != nil {
		return Report{}, err
	}
	n, err := note.Open([]byte(ls.Checkpoint), note.VerifierList(v))
	if err != nil {
		return Report{}, audit.Wrap(audit.EUNAUTHORIZED, err, "the checkpoint of %s does not verify with the key %s", tenant, v.Name())
	}
	cp, err := audit.ParseCheckpoint(n.Text)
	if err != nil {
		return Report{}, err
	}
	if r, ok := scan.(audit.Refresher); ok {
		if err := r.Refresh(ctx, tenant); err != nil {
			return Report{}, err
		}
	}
	stored := map[string]*storedEvent{}
	retention := map[string][]audit.LeafRange{} // by record id
	err = scan.ScanEvents(ctx, audit.Filter{TenantID: tenant}, audit.DefaultSort, func(batch []audit.Event) error {
		for _, e := range batch {
			stored[e.ID] = &storedEvent{hash: audit.LeafHash(e), leaf: -1}
			if r, ok := audit.RetentionLeaves(e); ok {
				retention[e.ID] = r
			}
		}
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	rep := Report{Checkpoint: cp}
	mem := memHashes{}
	for i := int64(0); i < cp.Size; {
		leaves, err := st.Leaves(ctx, tenant, i, 1000)
		if err != nil {
			return rep, err
		}
		if len(leaves) == 0 {
			return rep, audit.Errorf(audit.EINTERNAL, "the log of %s has no leaf %d under its checkpoint of %d", tenant, i, cp.Size)
		}
		for _, l := range leaves {
			rep.checkLeaf(l, stored)
			hs, err := tlog.StoredHashesForRecordHash(l.Index, l.Hash, mem)
			if err != nil {
				return rep, audit.Wrap(audit.EINTERNAL, err, "rebuilding the tree of %s", tenant)
			}
			for j, x := range hs {
				mem[tlog.StoredHashIndex(0, l.Index)+int64(j)] = x
			}
			i = l.Index + 1
		}
	}
	if root, err := tlog.TreeHash(cp.Size, mem); err != nil || root != cp.Root {
		rep.Findings = append(rep.Findings, Finding{Kind: "tree", Index: -1, Detail: fmt.Sprintf("the %d leaves make root %s, the signed checkpoint says %s", cp.Size, root, cp.Root)})
	}
	rep.excuseExpired(retention, stored)
	for id, e := range stored {
		if e.leaf < 0 {
			rep.Findings = append(rep.Findings, Finding{Kind: "unsealed", Index: -1, EventID: id, Detail: "stored but in no leaf (inserted behind the service, or not sealed yet)"})
		}
	}
	sort.Slice(rep.Findings, func(a, b int) bool { return rep.Findings[a].EventID < rep.Findings[b].EventID })
	return rep, nil
}

// storedEvent is a stored event's leaf hash, and the leaf that holds it
// (-1 before one does) and whether it matches it.
type storedEvent struct {
	hash   tlog.Hash
	leaf   int64
	intact bool
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
	case e.hash != l.Hash:
		rep.Findings = append(rep.Findings, Finding{Kind: "altered", Index: l.Index, EventID: l.EventID, Detail: "stored content differs from the sealed leaf"})
	default:
		e.intact = true
	}
	e.leaf = l.Index
	rep.Events++
}

// memHashes is a tree's stored hashes in memory.
type memHashes map[int64]tlog.Hash

func (m memHashes) ReadHashes(ix []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(ix))
	for i, x := range ix {
		out[i] = m[x]
	}
	return out, nil
}
