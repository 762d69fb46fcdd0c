package api_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/sqlite"
)

func hashOf(t *testing.T, s string) tlog.Hash {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != tlog.HashSize {
		t.Fatalf("hash %q: %v", s, err)
	}
	var h tlog.Hash
	copy(h[:], b)
	return h
}

// logBackend is a store with a verifiable log, and how to make its
// writes visible to searches.
type logBackend struct {
	store interface {
		vlog.Store
		api.Reader
		audit.EventWriter
	}
	visible func(t *testing.T)
}

// TestLogProofs: on both stores, the checkpoint verifies with the
// published key, an event's inclusion proof checks against it with the
// leaf hash of the event the API returns, consistency proofs check, the
// tiles rebuild the signed tree in a client (tlog.TileHashReader), and
// every refusal is a problem naming its parameter; another tenant's event
// is not found.
func TestLogProofs(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		testLogProofs(t, logBackend{store: s, visible: func(*testing.T) {}})
	})
	t.Run("elasticsearch", func(t *testing.T) {
		s := newLoggedStore(t)
		testLogProofs(t, logBackend{store: s, visible: func(t *testing.T) {
			if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil); err != nil {
				t.Fatal(err)
			}
		}})
	})
}

func testLogProofs(t *testing.T, b logBackend) {
	ctx := context.Background()
	s := b.store
	pub, priv, _ := ed25519.GenerateKey(nil)
	sealer := seal.New(seal.Config{Origin: "auditlog.test"}, seal.Deps{Accept: accepttest.Acceptor, Store: s, Key: priv})
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	h := &harness{srv: httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: s, Writer: s, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Log:    api.LogDeps{Store: s, Origin: "auditlog.test", Key: pub},
	}).Handler())}
	t.Cleanup(h.srv.Close)
	g := gen.New(gen.Config{Seed: 4, Tenants: 2, WithIDs: true}, 200)
	var events []audit.Event
	for i := 0; i < 200; i++ {
		events = append(events, g.Next())
	}
	tenant, other := g.Tenants()[0].ID, g.Tenants()[1].ID
	tok := token(t, tenant, audit.RoleAdmin, "")
	if _, err := s.WriteEvents(ctx, events[:120]); err != nil {
		t.Fatal(err)
	}
	if r := h.get(t, "/api/log/checkpoint", tok); r.status != 404 {
		t.Fatalf("before sealing: %d %s", r.status, r.body)
	}
	round := func() {
		for {
			if n, err := sealer.Round(ctx); err != nil {
				t.Fatal(err)
			} else if n == 0 {
				return
			}
		}
	}
	round()
	// The tenant's key is named by its log's origin, so that note alone
	// (and a witness) opens the checkpoint with it; the deployment's key
	// is what LogKeys takes for every tenant.
	var key struct{ VerifierKey, Name string }
	h.get(t, "/api/log-key?tenant="+tenant, "").json(t, &key)
	verifier, err := note.NewVerifier(key.VerifierKey)
	if err != nil || key.Name != vlog.Origin("auditlog.test", tenant) {
		t.Fatalf("the tenant's key %q (%v)", key.VerifierKey, err)
	}
	if r := h.get(t, "/api/log-key?tenant=nope", ""); r.status != 400 || !strings.Contains(string(r.body), `"tenant"`) {
		t.Fatalf("a bad tenant: %d %s", r.status, r.body)
	}
	var dep struct{ VerifierKey string }
	h.get(t, "/api/log-key", "").json(t, &dep)
	if keys, err := vlog.ParseKeys(dep.VerifierKey); err != nil || keys.Name() != "auditlog.test" {
		t.Fatalf("the deployment's key %q: %v", dep.VerifierKey, err)
	}
	first := h.get(t, "/api/log/checkpoint", tok)
	n, err := note.Open(first.body, note.VerifierList(verifier))
	if err != nil || first.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("checkpoint: %v %s", err, first.body)
	}
	cp1, _ := vlog.ParseCheckpoint(n.Text)
	if _, err := s.WriteEvents(ctx, events[120:]); err != nil {
		t.Fatal(err)
	}
	round()
	var mine, theirs audit.Event
	for _, e := range events {
		if e.TenantID == tenant {
			mine = e
		} else {
			theirs = e
		}
	}
	b.visible(t)
	var stored audit.Event
	h.get(t, "/api/audit-logs/"+mine.ID, tok).json(t, &stored)
	var in api.InclusionView
	if r := h.get(t, "/api/log/proof?event="+mine.ID, tok); r.status != 200 {
		t.Fatalf("proof: %d %s", r.status, r.body)
	} else {
		r.json(t, &in)
	}
	proof := make(tlog.RecordProof, len(in.Proof))
	for i, p := range in.Proof {
		proof[i] = hashOf(t, p)
	}
	if err := tlog.CheckRecord(proof, in.TreeSize, hashOf(t, in.RootHash), in.LeafIndex, vlog.LeafHash(stored)); err != nil {
		t.Fatalf("the inclusion proof does not check: %v", err)
	}
	n2, err := note.Open([]byte(in.Checkpoint), note.VerifierList(verifier))
	if cp2, _ := vlog.ParseCheckpoint(n2.Text); err != nil || cp2.Size != in.TreeSize || cp2.Root != hashOf(t, in.RootHash) {
		t.Fatalf("the proof's checkpoint: %v %+v", err, in)
	}
	var cv api.ConsistencyView
	h.get(t, "/api/log/consistency?from="+itoa(cp1.Size), tok).json(t, &cv)
	cproof := make(tlog.TreeProof, len(cv.Proof))
	for i, p := range cv.Proof {
		cproof[i] = hashOf(t, p)
	}
	if hashOf(t, cv.FromRoot) != cp1.Root || tlog.CheckTree(cproof, cv.To, hashOf(t, cv.ToRoot), cv.From, cp1.Root) != nil {
		t.Fatalf("consistency %+v against the first checkpoint %+v", cv, cp1)
	}
	checkTiles(t, h, tok, verifier, stored, in.LeafIndex)
	checkLeaves(t, h, tok, in, cp1.Size, token(t, other, audit.RoleAdmin, ""))
	for path, field := range map[string]string{
		"/api/log/leaves?start=-1":                        "start",
		"/api/log/leaves?limit=0":                         "limit",
		"/api/log/leaves?limit=1001":                      "limit",
		"/api/log/leaves?tenant=x":                        "tenant",
		"/api/log/tile/8/000":                             "path",
		"/api/log/tile/0/12":                              "path",
		"/api/log/tile/0/000.p/0":                         "path",
		"/api/log/tile/entries/000.p/0":                   "path",
		"/api/log/tile/entries/x":                         "path",
		"/api/log/proof?event=nope":                       "event",
		"/api/log/proof?event=" + mine.ID + "&size=99999": "size",
		"/api/log/consistency?from=0":                     "from",
		"/api/log/consistency?to=3":                       "from",
		"/api/log/consistency?from=5&to=99999":            "to",
		"/api/log/checkpoint?x=1":                         "x",
	} {
		r := h.get(t, path, tok)
		if r.status != 400 || !hasField(r.problem(t), field) {
			t.Fatalf("%s: %d %s, want a 400 naming %s", path, r.status, r.body, field)
		}
		// A path is not a query parameter: the problem says which it is.
		if field == "path" && !strings.Contains(string(r.body), "invalid tile path") {
			t.Fatalf("%s: %s, want the problem to name the tile path", path, r.body)
		}
	}
	if r := h.get(t, "/api/log/proof?event="+theirs.ID, tok); r.status != 404 {
		t.Fatalf("another tenant's event: %d %s", r.status, r.body)
	}
	if r := h.get(t, "/api/log/proof?event="+mine.ID, token(t, other, audit.RoleAdmin, "")); r.status != 404 {
		t.Fatalf("an event of the caller's tenant only: %d %s", r.status, r.body)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// checkLeaves pages through the tenant's leaves as a verifier does: they
// are the latest tree's, in order, and their hashes rebuild its root;
// the event of the proven leaf is listed at its index; past the tree,
// none; another tenant sees its own log only.
func checkLeaves(t *testing.T, h *harness, tok string, in api.InclusionView, firstSize int64, otherTok string) {
	t.Helper()
	type page struct {
		TreeSize int64
		Leaves   []api.LeafView
	}
	var all []api.LeafView
	var size int64
	for start := int64(0); ; {
		var p page
		h.get(t, "/api/log/leaves?limit=7&start="+itoa(start), tok).json(t, &p)
		if len(p.Leaves) == 0 {
			break
		}
		size = p.TreeSize
		all = append(all, p.Leaves...)
		start += int64(len(p.Leaves))
	}
	if int64(len(all)) != in.TreeSize || size != in.TreeSize || in.TreeSize <= firstSize {
		t.Fatalf("%d leaves listed, tree of %d", len(all), in.TreeSize)
	}
	mem := map[int64]tlog.Hash{}
	for i, l := range all {
		if l.Index != int64(i) {
			t.Fatalf("leaf %d listed at %d", l.Index, i)
		}
		hs, err := tlog.StoredHashesForRecordHash(l.Index, hashOf(t, l.LeafHash), tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
			out := make([]tlog.Hash, len(ix))
			for k, x := range ix {
				out[k] = mem[x]
			}
			return out, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		for j, x := range hs {
			mem[tlog.StoredHashIndex(0, l.Index)+int64(j)] = x
		}
	}
	root, err := tlog.TreeHash(in.TreeSize, tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for k, x := range ix {
			out[k] = mem[x]
		}
		return out, nil
	}))
	if err != nil || b64(root) != in.RootHash || all[in.LeafIndex].EventID != in.EventID || all[in.LeafIndex].LeafHash != in.LeafHash {
		t.Fatalf("the listed leaves make root %v (%v), the tree's is %s; leaf %d: %+v, want %s", root, err, in.RootHash, in.LeafIndex, all[in.LeafIndex], in.EventID)
	}
	var past, theirs page
	h.get(t, "/api/log/leaves?start="+itoa(in.TreeSize), tok).json(t, &past)
	h.get(t, "/api/log/leaves", otherTok).json(t, &theirs)
	if len(past.Leaves) != 0 || len(theirs.Leaves) == 0 || theirs.Leaves[0].EventID == all[0].EventID {
		t.Fatalf("past the tree: %+v; the other tenant's first leaf %+v", past, theirs)
	}
}

func b64(h tlog.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }

// checkTiles fetches the tiles of the latest checkpoint as a client does
// and checks them against its signed root (tlog.TileHashReader): the
// tree's root and the event's leaf hash come out of them; a tile past
// the checkpoint is not found.
func checkTiles(t *testing.T, h *harness, tok string, verifier note.Verifier, e audit.Event, leaf int64) {
	t.Helper()
	n, err := note.Open(h.get(t, "/api/log/checkpoint", tok).body, note.VerifierList(verifier))
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := vlog.ParseCheckpoint(n.Text)
	fetched := 0
	tr := tileFetcher{t: t, h: h, tok: tok, fetched: &fetched}
	thr := tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Root}, tr)
	if root, err := tlog.TreeHash(cp.Size, thr); err != nil || root != cp.Root {
		t.Fatalf("the tiles make root %v (%v), the checkpoint says %v", root, err, cp.Root)
	}
	hs, err := thr.ReadHashes([]int64{tlog.StoredHashIndex(0, leaf)})
	if err != nil || hs[0] != vlog.LeafHash(e) {
		t.Fatalf("leaf %d from the tiles: %v %v", leaf, hs, err)
	}
	if fetched == 0 {
		t.Fatal("no tile fetched")
	}
	past := tlog.Tile{H: 8, L: 0, N: cp.Size / 256, W: int(cp.Size%256) + 1}
	for _, path := range []string{strings.TrimPrefix(past.Path(), "tile/8"), "/7/000", "/7/000.p/255", "/3/x999/999"} {
		// Past the tree: a 404, however high the level (the schema
		// fuzzer's /7/000 was a 500: 256<<56 overflowed).
		if r := h.get(t, "/api/log/tile"+path, tok); r.status != 404 {
			t.Fatalf("a tile past the checkpoint %s: %d %s", path, r.status, r.body)
		}
	}
}

// tileFetcher reads tiles from the API (tlog.TileReader).
type tileFetcher struct {
	t       *testing.T
	h       *harness
	tok     string
	fetched *int
}

func (f tileFetcher) Height() int                     { return 8 }
func (f tileFetcher) SaveTiles([]tlog.Tile, [][]byte) {}
func (f tileFetcher) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, tl := range tiles {
		// C2SP tlog-tiles paths leave out the height of Go's tile paths.
		r := f.h.get(f.t, "/api/log/tile"+strings.TrimPrefix(tl.Path(), "tile/8"), f.tok)
		if r.status != 200 || r.header.Get("Content-Type") != "application/octet-stream" {
			return nil, fmt.Errorf("tile %s: %d %s", tl.Path(), r.status, r.body)
		}
		out[i] = r.body
		*f.fetched++
	}
	return out, nil
}
