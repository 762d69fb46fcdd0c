package audit

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

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
	cp := Checkpoint{Origin: LogOrigin("audit.example", "t"), Size: 3}
	sign := func(s note.Signer) []byte {
		b, err := note.Sign(&note.Note{Text: cp.Text()}, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, list := range []string{oldKey + "," + newKey, oldKey + "\n" + newKey + "\n", " " + oldKey + " , " + newKey} {
		keys, err := ParseLogKeys(list)
		if err != nil || len(keys) != 2 || keys.Name() != "audit.example" {
			t.Fatalf("%q: %v %v", list, keys, err)
		}
		for _, s := range []note.Signer{oldSigner, newSigner} {
			if got, err := keys.Open(sign(s)); err != nil || got.Size != 3 {
				t.Fatalf("signed by %s: %+v %v", s.Name(), got, err)
			}
		}
		if _, err := keys.Open(sign(strangerSigner)); ErrorCode(err) != EUNAUTHORIZED {
			t.Fatalf("signed by another key: %v", err)
		}
	}
	for _, bad := range []string{"", " , ", oldKey + "," + otherKey, "audit.example+1234+notbase64"} {
		if _, err := ParseLogKeys(bad); ErrorCode(err) != EINVALID {
			t.Errorf("%q: %v, want EINVALID", strings.TrimSpace(bad), err)
		}
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
