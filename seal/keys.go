package seal

import (
	"crypto/ed25519"

	"golang.org/x/mod/sumdb/note"

	"github.com/auditlog/auditlog/audit"
)

// signer signs checkpoints with an Ed25519 key as a note.Signer (C2SP
// signed-note, algorithm 1).
type signer struct {
	name string
	hash uint32
	key  ed25519.PrivateKey
}

func (s signer) Name() string                    { return s.name }
func (s signer) KeyHash() uint32                 { return s.hash }
func (s signer) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }

// NewSigner returns the checkpoint signer of key under name (the
// deployment's origin), and its verifier key in note's text form
// ("<name>+<hash>+<base64 key>"), which anyone verifies checkpoints with
// (note.NewVerifier). The key is the periodic export's signing key, so
// one key, published at /api/export-keys, signs both. Errors: EINVALID
// for a name note refuses.
func NewSigner(name string, key ed25519.PrivateKey) (note.Signer, string, error) {
	vkey, err := note.NewEd25519VerifierKey(name, key.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, "", audit.Wrap(audit.EINVALID, err, "checkpoint key name %q", name)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, "", audit.Wrap(audit.EINVALID, err, "checkpoint key name %q", name)
	}
	return signer{name: name, hash: v.KeyHash(), key: key}, vkey, nil
}
