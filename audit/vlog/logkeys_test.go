package vlog

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"

	"golang.org/x/mod/sumdb/note"
)

// TestLogKeysAcrossARotation: keys are read from a list in any of the
// separators; a checkpoint signed by any of them opens, one signed by
// another key does not; keys of two deployments, a malformed key or none
// are refused.
func TestLogKeysAcrossARotation(t *testing.T) {
	key := func(name string) (string, note.Signer) {
		pub, priv, _ := ed25519.GenerateKey(rand.Reader)
		vkey, err := note.NewEd25519VerifierKey(name, pub)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := note.NewVerifier(vkey)
		return vkey, testSigner{name, v.KeyHash(), priv}
	}
	oldKey, oldSigner := key("audit.example")
	newKey, newSigner := key("audit.example")
	_, strangerSigner := key("audit.example")
	otherKey, _ := key("other.example")
	cp := Checkpoint{Origin: Origin("audit.example", "t"), Size: 3}
	sign := func(s note.Signer) []byte {
		b, err := note.Sign(&note.Note{Text: cp.Text()}, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, list := range []string{oldKey + "," + newKey, oldKey + "\n" + newKey + "\n", " " + oldKey + " , " + newKey} {
		keys, err := ParseKeys(list)
		if err != nil || keys.Len() != 2 || keys.Name() != "audit.example" {
			t.Fatalf("%q: %v %v", list, keys, err)
		}
		for _, s := range []note.Signer{oldSigner, newSigner} {
			if got, err := keys.Open(sign(s)); err != nil || got.Size != 3 {
				t.Fatalf("signed by %s: %+v %v", s.Name(), got, err)
			}
		}
		if _, err := keys.Open(sign(strangerSigner)); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
			t.Fatalf("signed by another key: %v", err)
		}
	}
	for _, bad := range []string{"", " , ", oldKey + "," + otherKey, "audit.example+1234+notbase64"} {
		if _, err := ParseKeys(bad); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("%q: %v, want EINVALID", strings.TrimSpace(bad), err)
		}
	}
}

// TestLogKeysNameTheOrigin: a tenant's checkpoint is signed under its
// origin's name; a key pinned under the deployment's name verifies it
// (and one signed under the deployment's name, as before), a key pinned
// under one tenant's origin verifies that tenant's log only; the key's
// text form is note's, for either name.
func TestLogKeysNameTheOrigin(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	a, b := Origin("audit.example", "a"), Origin("audit.example", "b")
	signed := func(origin, name string) []byte {
		v, err := note.NewVerifier(VerifierKey(name, pub))
		if err != nil {
			t.Fatal(err)
		}
		n, err := note.Sign(&note.Note{Text: Checkpoint{Origin: origin, Size: 1}.Text()}, testSigner{name, v.KeyHash(), priv})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	deployment, _ := ParseKeys(VerifierKey("audit.example", pub))
	tenantA, err := ParseKeys(VerifierKey(a, pub))
	if err != nil || tenantA.Name() != "audit.example" {
		t.Fatalf("a tenant's key: %v %q", err, tenantA.Name())
	}
	for _, c := range []struct {
		keys Keys
		note []byte
		ok   bool
	}{
		{deployment, signed(a, a), true},
		{deployment, signed(b, b), true},
		{deployment, signed(a, "audit.example"), true},
		{tenantA, signed(a, a), true},
		{tenantA, signed(b, b), false},
		{tenantA, signed(a, "audit.example"), false},
		{NewKeys("other.example", pub), signed(a, a), false},
	} {
		if _, err := c.keys.Open(c.note); (err == nil) != c.ok {
			t.Errorf("%s with %s: %v, want ok=%v", c.note, c.keys.keys[0].name, err, c.ok)
		}
	}
	// note itself opens a tenant's checkpoint with the tenant's key.
	v, _ := note.NewVerifier(VerifierKey(a, pub))
	if _, err := note.Open(signed(a, a), note.VerifierList(v)); err != nil {
		t.Fatal(err)
	}
}

type testSigner struct {
	name string
	hash uint32
	key  ed25519.PrivateKey
}

func (s testSigner) Name() string                    { return s.name }
func (s testSigner) KeyHash() uint32                 { return s.hash }
func (s testSigner) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }
