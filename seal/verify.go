package seal

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"sort"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Finding is one thing a verification found wrong.
type Finding struct {
	Kind    string // altered, malformed, misindexed, missing, repeated, unsealed, unaccepted, unauthorized, storedkey, tree, truncated, rollback, reordered, rewritten
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
	Checkpoint, First vlog.Checkpoint
	// Signed is Checkpoint's signed note, as read (what a verifier keeps,
	// Memory).
	Signed []byte
	Events int64 // stored events checked against their leaves
	// Expired counts the leaves whose events retention deleted, as
	// sealed retention records say (no finding).
	Expired  int64
	Findings []Finding
}

// Verify checks a tenant's log in its store as Check does, with no grace:
// an event stored but not sealed yet is named unsealed.
func Verify(ctx context.Context, st vlog.Store, scan audit.EventScanner, tenant string, keys vlog.Keys) (Report, error) {
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
// It reads the leaves first, keeping about 60 bytes of each (leafTable),
// then the rows once, judging each as it comes. Errors: EUNAUTHORIZED
// for a checkpoint no pinned key verifies or of another log, ENOTFOUND
// for a log without one, EUNAVAILABLE.
func Check(ctx context.Context, src Source, tenant string, keys vlog.Keys, grace time.Duration) (Report, error) {
	return CheckKept(ctx, src, tenant, keys, grace, nil)
}

// CheckKept is Check by a verifier that kept a checkpoint of this log
// before (Memory): a first checkpoint smaller than kept, or whose tree
// does not have kept's as its prefix, is named rollback.
func CheckKept(ctx context.Context, src Source, tenant string, keys vlog.Keys, grace time.Duration, kept *vlog.Checkpoint) (Report, error) {
	cp, signed, err := openCheckpoint(ctx, src, tenant, keys)
	if err != nil {
		return Report{}, err
	}
	if cp.Size > maxLeaves {
		return Report{}, audit.Errorf(audit.EINVALID, "the log of %s has %d leaves: one verification holds at most %d", tenant, cp.Size, int64(maxLeaves))
	}
	c := &checker{src: src, tenant: tenant, leaves: newLeafTable(cp.Size), pending: map[idKey]*row{}, misAt: map[int64]int{},
		rep: Report{Checkpoint: cp, First: cp, Signed: signed}}
	if err := c.extend(ctx, cp); err != nil {
		return c.rep, err
	}
	if kept != nil {
		if f := Rollback(*kept, cp, c.rootAt); f != nil {
			c.rep.Findings = append(c.rep.Findings, *f)
		}
	}
	found, err := c.readRows(ctx)
	if err != nil {
		return c.rep, err
	}
	c.attach(found)
	for deadline := time.Now().Add(grace); len(c.pending) > 0 && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return c.rep, ctx.Err()
		case <-time.After(time.Second):
		}
		next, signed, err := openCheckpoint(ctx, src, tenant, keys)
		if err != nil {
			return c.rep, err
		}
		if next.Size > c.rep.Checkpoint.Size {
			if err := c.extend(ctx, next); err != nil {
				return c.rep, err
			}
			c.rep.Signed = signed
		}
	}
	if err := c.finish(ctx); err != nil {
		return c.rep, err
	}
	if err := c.keyRows(ctx); err != nil {
		return c.rep, err
	}
	sort.SliceStable(c.rep.Findings, func(a, b int) bool { return c.rep.Findings[a].EventID < c.rep.Findings[b].EventID })
	return c.rep, nil
}

// openCheckpoint reads src's latest checkpoint and verifies it.
func openCheckpoint(ctx context.Context, src Source, tenant string, keys vlog.Keys) (vlog.Checkpoint, []byte, error) {
	signed, err := src.SignedCheckpoint(ctx, keys.Cosigned())
	if err != nil {
		return vlog.Checkpoint{}, nil, err
	}
	cp, err := keys.Open(signed)
	if err != nil {
		return cp, nil, err
	}
	if want := vlog.Origin(keys.Name(), tenant); cp.Origin != want {
		return cp, nil, audit.Errorf(audit.EUNAUTHORIZED, "the checkpoint is of the log %s, not of %s", cp.Origin, want)
	}
	return cp, signed, nil
}

// checker rebuilds a tenant's tree leaf by leaf and judges each leaf.
type checker struct {
	src     Source
	tenant  string
	leaves  *leafTable
	pending map[idKey]*row // rows read whose events no leaf read holds
	// retained is the leaf ranges that sealed, intact retention
	// records say retention deleted.
	retained []retention.LeafRange
	misAt    map[int64]int // a leaf's misindexed finding, in rep.Findings
	// statements are the intact plan change and retention records, for
	// authorize.
	statements []statement
	rep        Report
}

// extend reads the leaves from the table's size up to cp's, and checks
// cp's root. A leaf of a later checkpoint than the first judges a
// pending row (an event read before it was sealed); the others were
// stored after the read, and are not this verification's.
func (c *checker) extend(ctx context.Context, cp vlog.Checkpoint) error {
	for i := c.leaves.size(); i < cp.Size; {
		leaves, err := c.src.Leaves(ctx, i, 1000)
		if err != nil {
			return err
		}
		if len(leaves) == 0 {
			c.truncated(cp, fmt.Sprintf("the checkpoint signs %d leaves, and the log lists %d: the leaves from #%d on were removed (a truncated tree)", cp.Size, i, i))
			return nil
		}
		for _, l := range leaves[:min(int64(len(leaves)), cp.Size-i)] {
			if l.Index != i {
				c.truncated(cp, fmt.Sprintf("the leaves go from #%d to #%d: not the tree's order (leaves removed or renumbered)", i-1, l.Index))
				return nil
			}
			c.leaf(l)
			i = l.Index + 1
		}
	}
	c.rep.Checkpoint = cp
	if root := c.leaves.root.root(); root != cp.Root {
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "tree", Index: -1,
			Detail: fmt.Sprintf("the %d leaves make root %s, the signed checkpoint says %s", cp.Size, root, cp.Root)})
		if ts, ok := c.src.(TileSource); ok {
			return c.nameDiffering(ctx, cp, ts)
		}
	}
	return nil
}

// truncated names a log whose listed leaves stop short of, or skip
// within, the checkpoint's tree: the checkpoint verified stays the one
// read, the verification goes on with the leaves listed.
func (c *checker) truncated(cp vlog.Checkpoint, detail string) {
	c.rep.Checkpoint = cp
	c.rep.Findings = append(c.rep.Findings, Finding{Kind: "truncated", Index: -1, Detail: detail})
}

// rootAt is the root of the first n leaves read (Rollback's prefix).
func (c *checker) rootAt(n int64) (tlog.Hash, error) {
	if n > c.leaves.size() {
		return tlog.Hash{}, audit.Errorf(audit.EINVALID, "only %d leaves were read", c.leaves.size())
	}
	var r rootRange
	for _, h := range c.leaves.hashes[:n] {
		r.append(h)
	}
	return r.root(), nil
}

// leaf adds the next leaf to the table: a second leaf of one event is
// named repeated; a leaf of a pending row judges it.
func (c *checker) leaf(l vlog.Leaf) {
	k := keyOf(l.EventID)
	if earlier, again := c.leaves.add(k, l.Hash); again {
		c.rep.Findings = append(c.rep.Findings, Finding{Kind: "repeated", Index: l.Index, EventID: l.EventID, Detail: fmt.Sprintf("already leaf #%d", earlier)})
		return
	}
	if r := c.pending[k]; r != nil {
		delete(c.pending, k)
		c.judge(l.Index, r)
	}
}
