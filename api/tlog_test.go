package api_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
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

// TestLogProofsOnSQLite: the checkpoint verifies with the published key,
// an event's inclusion proof checks against it with the leaf hash of the
// event the API returns, consistency proofs check, and every refusal is a
// problem naming its parameter; another tenant's event is not found.
func TestLogProofsOnSQLite(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, vkey, err := seal.NewSigner("auditlog.test", priv)
	if err != nil {
		t.Fatal(err)
	}
	sealer := seal.New(seal.Config{Origin: "auditlog.test"}, seal.Deps{Store: s, Signer: signer})
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	h := &harness{srv: httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: s, Writer: s, Verifier: v, Cursors: audit.NewCursorCodec([]byte("k"))},
		Log:    api.LogDeps{Store: s, VerifierKey: vkey},
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
	var key struct{ VerifierKey string }
	h.get(t, "/api/log-key", "").json(t, &key)
	verifier, err := note.NewVerifier(key.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	first := h.get(t, "/api/log/checkpoint", tok)
	n, err := note.Open(first.body, note.VerifierList(verifier))
	if err != nil || first.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("checkpoint: %v %s", err, first.body)
	}
	cp1, _ := audit.ParseCheckpoint(n.Text)
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
	if err := tlog.CheckRecord(proof, in.TreeSize, hashOf(t, in.RootHash), in.LeafIndex, audit.LeafHash(stored)); err != nil {
		t.Fatalf("the inclusion proof does not check: %v", err)
	}
	n2, err := note.Open([]byte(in.Checkpoint), note.VerifierList(verifier))
	if cp2, _ := audit.ParseCheckpoint(n2.Text); err != nil || cp2.Size != in.TreeSize || cp2.Root != hashOf(t, in.RootHash) {
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
	for path, field := range map[string]string{
		"/api/log/proof?event=nope":                       "event",
		"/api/log/proof?event=" + mine.ID + "&size=99999": "size",
		"/api/log/consistency?from=0":                     "from",
		"/api/log/consistency?to=3":                       "from",
		"/api/log/consistency?from=5&to=99999":            "to",
		"/api/log/checkpoint?x=1":                         "x",
	} {
		if r := h.get(t, path, tok); r.status != 400 || !hasField(r.problem(t), field) {
			t.Fatalf("%s: %d %s, want a 400 naming %s", path, r.status, r.body, field)
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
