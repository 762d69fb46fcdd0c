package seal

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Finding is one thing a verification found wrong.
type Finding struct {
	Kind    string // altered, missing, unsealed, tree
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
	Findings   []Finding
}

// Verify checks a tenant's log against its store: the latest checkpoint
// is signed by the pinned verifier; the tree rebuilt from the stored
// leaves has the checkpoint's root (else the leaves were rewritten); each
// leaf's event is still stored (else missing) and still has the leaf's
// hash (else altered: edited, back-dated, swapped); and every stored
// event of the tenant is a leaf (else unsealed: inserted behind the
// service, or not sealed yet). Errors: an
// EUNAUTHORIZED for a checkpoint the key does not verify, EUNAVAILABLE.
func Verify(ctx context.Context, st audit.LogStore, events audit.EventReader, scan audit.EventScanner, tenant string, v note.Verifier) (Report, error) {
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
	rep := Report{Checkpoint: cp}
	mem := memHashes{}
	for i := int64(0); i < cp.Size; i++ {
		h, err := rep.checkLeaf(ctx, st, events, tenant, i)
		if err != nil {
			return rep, err
		}
		hs, err := tlog.StoredHashesForRecordHash(i, h, mem)
		if err != nil {
			return rep, audit.Wrap(audit.EINTERNAL, err, "rebuilding the tree of %s", tenant)
		}
		for j, x := range hs {
			mem[tlog.StoredHashIndex(0, i)+int64(j)] = x
		}
	}
	if root, err := tlog.TreeHash(cp.Size, mem); err != nil || root != cp.Root {
		rep.Findings = append(rep.Findings, Finding{Kind: "tree", Index: -1, Detail: fmt.Sprintf("the %d leaves make root %s, the signed checkpoint says %s", cp.Size, root, cp.Root)})
	}
	err = scan.ScanEvents(ctx, audit.Filter{TenantID: tenant}, audit.DefaultSort, func(batch []audit.Event) error {
		for _, e := range batch {
			if _, err := st.LeafOf(ctx, tenant, e.ID); audit.ErrorCode(err) == audit.ENOTFOUND {
				rep.Findings = append(rep.Findings, Finding{Kind: "unsealed", Index: -1, EventID: e.ID, Detail: "stored but in no leaf (inserted behind the service, or not sealed yet)"})
			} else if err != nil {
				return err
			}
		}
		return nil
	})
	return rep, err
}

// checkLeaf checks leaf i's event against the leaf, and returns the
// leaf's hash: the tree is rebuilt from the stored leaves, so a rewritten
// leaf table shows as a wrong root, and each event is judged on its own.
func (rep *Report) checkLeaf(ctx context.Context, st audit.LogStore, events audit.EventReader, tenant string, i int64) (tlog.Hash, error) {
	l, err := st.LeafAt(ctx, tenant, i)
	if err != nil {
		return tlog.Hash{}, err
	}
	e, err := events.GetEvent(ctx, tenant, l.EventID)
	switch {
	case audit.ErrorCode(err) == audit.ENOTFOUND:
		rep.Findings = append(rep.Findings, Finding{Kind: "missing", Index: i, EventID: l.EventID, Detail: "in the log, no longer stored"})
		return l.Hash, nil
	case err != nil:
		return tlog.Hash{}, err
	}
	rep.Events++
	if audit.LeafHash(e) != l.Hash {
		rep.Findings = append(rep.Findings, Finding{Kind: "altered", Index: i, EventID: l.EventID, Detail: "stored content differs from the sealed leaf"})
	}
	return l.Hash, nil
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
