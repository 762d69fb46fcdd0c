package vlog

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"testing"

	"github.com/auditlog/auditlog/audit"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
)

// TestWitnessPolicy: cosignatures made by torchwood's signer (the one
// litewitness uses) verify with keys read from their text form; a
// checkpoint opens only with the log's signature and at least quorum
// distinct witnesses' cosignatures; a cosignature of another checkpoint,
// by an unpinned witness, or alone without the log's signature counts
// for nothing.
func TestWitnessPolicy(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	origin := Origin("audit.example", "t")
	keys, _ := ParseKeys(VerifierKey("audit.example", pub))
	logV, _ := note.NewVerifier(VerifierKey(origin, pub))
	text := Checkpoint{Origin: origin, Size: 5}.Text()
	signed, err := note.Sign(&note.Note{Text: text}, testSigner{origin, logV.KeyHash(), priv})
	if err != nil {
		t.Fatal(err)
	}
	var signers []*torchwood.CosignatureSigner
	var vkeys []note.Verifier
	for _, name := range []string{"w1.example", "w2.example", "w3.example"} {
		_, wk, _ := ed25519.GenerateKey(rand.Reader)
		s, err := torchwood.NewCosignatureSigner(name, wk)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ParseWitnessKey(s.Verifier().String())
		if err != nil {
			t.Fatalf("%s: %v", s.Verifier().String(), err)
		}
		signers, vkeys = append(signers, s), append(vkeys, v)
	}
	cosign := func(note_ []byte, by ...int) []byte {
		out := append([]byte{}, note_...)
		for _, i := range by {
			n, err := note.Sign(&note.Note{Text: text}, signers[i])
			if err != nil {
				t.Fatal(err)
			}
			_, sig, _ := bytes.Cut(n, []byte("\n\n"))
			out = append(out, sig...)
		}
		return out
	}
	two, err := keys.WithWitnesses(vkeys, 2)
	if err != nil || !two.Cosigned() {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		note []byte
		ok   bool
	}{
		{"no cosignature", signed, false},
		{"one of two", cosign(signed, 0), false},
		{"the same witness twice", cosign(signed, 1, 1), false},
		{"two", cosign(signed, 0, 2), true},
		{"three", cosign(signed, 0, 1, 2), true},
	} {
		if _, err := two.Open(c.note); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", c.name, err, c.ok)
		}
	}
	// Cosignatures without the log's signature: a log key that is not
	// the pinned one.
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	ov, _ := note.NewVerifier(VerifierKey(origin, other.Public().(ed25519.PublicKey)))
	forged, _ := note.Sign(&note.Note{Text: text}, testSigner{origin, ov.KeyHash(), other})
	if _, err := two.Open(cosign(forged, 0, 1, 2)); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("cosigned, but not by the log: %v", err)
	}
	// A cosignature of another checkpoint does not verify.
	n, _ := note.Sign(&note.Note{Text: Checkpoint{Origin: origin, Size: 6}.Text()}, signers[1])
	_, stale, _ := bytes.Cut(n, []byte("\n\n"))
	if _, err := two.Open(append(cosign(signed, 0), stale...)); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("a cosignature of another checkpoint: %v", err)
	}
	if _, err := keys.Open(cosign(signed, 0)); err != nil {
		t.Fatalf("without witnesses required, cosignatures are no obstacle: %v", err)
	}
	for _, bad := range []string{"w.example+00000000+AQ==", VerifierKey("audit.example", pub), "nope"} {
		if _, err := ParseWitnessKey(bad); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("%q: %v, want EINVALID", bad, err)
		}
	}
	if _, err := keys.WithWitnesses(vkeys, 4); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("a quorum above the witnesses: %v", err)
	}
}
