package storetest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/vlog"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/seal"
)

// LogBackend is a store with a verifiable log.
type LogBackend struct {
	Backend
	Log vlog.Store
	// WriterWith is a second writer on the same storage whose tags are
	// made with accept (nil: none): what someone who can write the
	// storage but holds no acceptance key stores.
	WriterWith func(t *testing.T, accept *vlog.Acceptor) audit.EventWriter
}

// RunLog runs the verifiable log's behaviours on a store.
func RunLog(t *testing.T, newBackend func(t *testing.T) LogBackend) {
	t.Run("EveryEventOneLeafProvable", func(t *testing.T) { testEveryEventOneLeaf(t, newBackend(t)) })
	t.Run("ParallelSealersOneLeafEach", func(t *testing.T) { testParallelSealers(t, newBackend(t)) })
	t.Run("CosignedCheckpoints", func(t *testing.T) { testCosigned(t, newBackend(t)) })
	t.Run("OnlyAcceptedRowsAreSealed", func(t *testing.T) { testOnlyAccepted(t, newBackend(t)) })
	t.Run("ARunLingersAfterAPartialRound", func(t *testing.T) { testRunLingers(t, newBackend(t)) })
}

// testSealer is a sealer over b signing with a fresh key, and the
// verifier of its checkpoints.
func testSealer(t *testing.T, b LogBackend, batch int) (*seal.Sealer, vlog.Keys) {
	return NewSealer(t, b.Log, batch)
}

// NewSealer is a sealer over log with rounds of batch events (0: the
// default), signing with a fresh key, and the verifier of its
// checkpoints.
func NewSealer(t testing.TB, log vlog.Store, batch int) (*seal.Sealer, vlog.Keys) {
	t.Helper()
	pub, priv, _ := ed25519.GenerateKey(nil)
	return seal.New(seal.Config{Origin: "auditlog.test", Batch: batch}, seal.Deps{Store: log, Key: priv, Accept: accepttest.Acceptor}), vlog.NewKeys("auditlog.test", pub)
}

// sealAll runs rounds until nothing is pending.
func sealAll(t testing.TB, s *seal.Sealer) { SealAll(t, s) }

// SealAll runs rounds until nothing is pending (a round lost to another
// sealer is run again).
func SealAll(t testing.TB, s *seal.Sealer) {
	t.Helper()
	for {
		n, err := s.Round(context.Background())
		if err != nil && audit.ErrorCode(err) != audit.ECONFLICT {
			t.Fatal(err)
		}
		if n == 0 && err == nil {
			return
		}
	}
}

// WantFindings checks that a verification found exactly want (event id
// to kind), and that the same log refuses a checkpoint key it was not
// signed with.
func WantFindings(t testing.TB, rep seal.Report, want map[string]string, log vlog.Store, scan audit.EventScanner, tenant string) {
	t.Helper()
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.EventID] = f.Kind
	}
	if len(got) != len(want) {
		t.Fatalf("findings %v, want %v", rep.Findings, want)
	}
	for id, kind := range want {
		if got[id] != kind {
			t.Fatalf("%s: %q, want %q (all: %v)", id, got[id], kind, rep.Findings)
		}
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if _, err := seal.Verify(context.Background(), log, scan, tenant, vlog.NewKeys("auditlog.test", other)); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("another key: %v", err)
	}
}

// testEveryEventOneLeaf: every stored event is one leaf of its tenant's
// log, duplicates none; the checkpoint is signed and its root is the tree
// of the stored events' leaf hashes, computed here from the events with
// the tlog library alone; each event's inclusion proof checks, an edited
// event's does not; a later tree is proven consistent with an earlier.
func testEveryEventOneLeaf(t *testing.T, b LogBackend) {
	ctx := context.Background()
	d := NewDataset(400)
	Write(t, b.Writer, d.All[:150])
	s, v := testSealer(t, b, 64)
	sealAll(t, s)
	early, err := b.Log.LogState(ctx, d.A)
	if err != nil || early.Size == 0 {
		t.Fatalf("after the first events: %+v %v", early, err)
	}
	Write(t, b.Writer, d.All) // the first 150 again: duplicates, no leaf
	b.Visible(t)
	sealAll(t, s)
	for tenant, events := range map[string][]audit.Event{d.A: d.Events, d.B: d.Others} {
		ls, err := b.Log.LogState(ctx, tenant)
		if err != nil || ls.Size != int64(len(events)) {
			t.Fatalf("tenant %s: log of %d leaves for %d events (%v)", tenant, ls.Size, len(events), err)
		}
		n, err := note.Open([]byte(ls.Checkpoint), v)
		if err != nil {
			t.Fatalf("the checkpoint does not verify: %v\n%s", err, ls.Checkpoint)
		}
		cp, err := vlog.ParseCheckpoint(n.Text)
		if err != nil || cp.Size != ls.Size || cp.Root != ls.Root || cp.Origin != vlog.Origin("auditlog.test", tenant) {
			t.Fatalf("checkpoint %+v (%v), state %+v", cp, err, ls)
		}
		if root := independentRoot(t, b, tenant, ls.Size); root != ls.Root {
			t.Fatalf("tenant %s: the stored events' tree has root %s, the checkpoint %s", tenant, root, ls.Root)
		}
		checkProofs(t, b, tenant, events, ls)
	}
	later, _ := b.Log.LogState(ctx, d.A)
	c, err := seal.ProveConsistency(ctx, b.Log, d.A, early.Size, 0)
	if err != nil || c.FromRoot != early.Root || c.ToRoot != later.Root || tlog.CheckTree(c.Proof, later.Size, later.Root, early.Size, early.Root) != nil {
		t.Fatalf("consistency %d → %d: %+v %v", early.Size, later.Size, c, err)
	}
}

// independentRoot recomputes a tenant's root from its stored events in
// leaf order, with tlog in memory.
func independentRoot(t *testing.T, b LogBackend, tenant string, size int64) tlog.Hash {
	t.Helper()
	mem := memHashes{}
	for i := int64(0); i < size; i++ {
		l, err := b.Log.LeafAt(context.Background(), tenant, i)
		if err != nil {
			t.Fatal(err)
		}
		e, err := b.Reader.GetEvent(context.Background(), tenant, l.EventID)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(e)
		hs, err := tlog.StoredHashes(i, Entry(e.ID, CanonicalJSON(t, raw)), mem)
		if err != nil {
			t.Fatal(err)
		}
		for j, h := range hs {
			mem[tlog.StoredHashIndex(0, i)+int64(j)] = h
		}
	}
	root, err := tlog.TreeHash(size, mem)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

type memHashes map[int64]tlog.Hash

func (m memHashes) ReadHashes(ix []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(ix))
	for i, x := range ix {
		out[i] = m[x]
	}
	return out, nil
}

// checkProofs: each event's inclusion proof checks against the state's
// root; the same proof fails for the event with one field changed.
func checkProofs(t *testing.T, b LogBackend, tenant string, events []audit.Event, ls vlog.State) {
	t.Helper()
	for i, e := range events {
		if i%7 != 0 {
			continue
		}
		p, err := seal.ProveInclusion(context.Background(), b.Log, tenant, e.ID, 0)
		if err != nil || p.Size != ls.Size || p.Root != ls.Root {
			t.Fatalf("%s: %+v %v", e.ID, p, err)
		}
		stored, _ := b.Reader.GetEvent(context.Background(), tenant, e.ID)
		if err := tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, vlog.LeafHash(stored)); err != nil {
			t.Fatalf("%s: inclusion proof: %v", e.ID, err)
		}
		stored.Actor.Email = "someone.else@x.example"
		if tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, vlog.LeafHash(stored)) == nil {
			t.Fatalf("%s: an edited event's proof checks", e.ID)
		}
	}
}

// testParallelSealers: sealers racing on one store append each event
// once; the losers' rounds change nothing.
func testParallelSealers(t *testing.T, b LogBackend) {
	d := NewDataset(300)
	Write(t, b.Writer, d.All)
	b.Visible(t)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := testSealer(t, b, 16)
			sealAll(t, s)
		}()
	}
	wg.Wait()
	for tenant, events := range map[string][]audit.Event{d.A: d.Events, d.B: d.Others} {
		ls, _ := b.Log.LogState(context.Background(), tenant)
		seen := map[string]bool{}
		for i := int64(0); i < ls.Size; i++ {
			l, err := b.Log.LeafAt(context.Background(), tenant, i)
			if err != nil || seen[l.EventID] {
				t.Fatalf("leaf %d: %+v %v (seen before: %v)", i, l, err, seen[l.EventID])
			}
			seen[l.EventID] = true
		}
		if len(seen) != len(events) {
			t.Fatalf("tenant %s: %d leaves for %d events", tenant, len(seen), len(events))
		}
	}
}

// Entry is a leaf's entry as docs/event.md documents it, written here from the
// documentation (not with vlog.LeafEntry): "auditlog-event-v2", the
// event id, and the base64 SHA-256 of the canonical encoding, a line
// each.
func Entry(id string, canonical []byte) []byte {
	d := sha256.Sum256(canonical)
	return []byte("auditlog-event-v2\n" + id + "\n" + base64.StdEncoding.EncodeToString(d[:]) + "\n")
}

// CanonicalJSON is the leaf encoding as docs/event.md documents it, written here
// from the documentation (not with vlog.LeafData): the event's JSON
// decoded, numbers kept as written, and encoded again with object keys
// sorted, no white space, no HTML escaping.
func CanonicalJSON(t testing.TB, raw []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// EveryStoredEventOneLeaf seals what is pending in log (rounds with a
// fresh key until none is) and checks that each tenant's leaves are
// exactly its stored events, each once: none left out, none twice.
func EveryStoredEventOneLeaf(t testing.TB, log vlog.Store, stored map[string]audit.Event) {
	t.Helper()
	ctx := context.Background()
	s, _ := NewSealer(t, log, 0)
	SealAll(t, s)
	byTenant := map[string]map[string]bool{}
	for _, e := range stored {
		if byTenant[e.TenantID] == nil {
			byTenant[e.TenantID] = map[string]bool{}
		}
		byTenant[e.TenantID][e.ID] = true
	}
	for tenant, ids := range byTenant {
		leaves, err := log.Leaves(ctx, tenant, 0, len(ids)+1)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, l := range leaves {
			if !ids[l.EventID] || seen[l.EventID] {
				t.Fatalf("tenant %s: leaf %d holds %s (stored: %v, a leaf already: %v)", tenant, l.Index, l.EventID, ids[l.EventID], seen[l.EventID])
			}
			seen[l.EventID] = true
		}
		if len(seen) != len(ids) {
			t.Fatalf("tenant %s: %d leaves for %d stored events", tenant, len(seen), len(ids))
		}
	}
}
