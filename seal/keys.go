package seal

import (
	"crypto"
	"crypto/ed25519"

	"golang.org/x/mod/sumdb/note"

	"github.com/auditlog/auditlog/audit"
)

// signer signs checkpoints as a note.Signer (C2SP signed-note, algorithm
// 1: Ed25519) with any crypto.Signer of an Ed25519 key: a key from a file
// (keyfile), or one that never leaves an HSM, a KMS or an ssh-agent.
type signer struct {
	name string
	hash uint32
	key  crypto.Signer
}

func (s signer) Name() string    { return s.name }
func (s signer) KeyHash() uint32 { return s.hash }
func (s signer) Sign(msg []byte) ([]byte, error) {
	return s.key.Sign(nil, msg, crypto.Hash(0)) // Ed25519 signs the message itself
}

// NewSigner returns the checkpoint signer of key under name (a tenant's
// log origin, vlog.Origin, so that the key name matches the origin
// as C2SP tlog-checkpoint asks), and its verifier key in note's text form
// ("<name>+<hash>+<base64 key>"). The key is the periodic export's
// signing key, so one key, published at /api/export-keys, signs both.
// Errors: EINVALID for a name note refuses or a key that is not Ed25519.
func NewSigner(name string, key crypto.Signer) (note.Signer, string, error) {
	pub, ok := key.Public().(ed25519.PublicKey)
	if !ok {
		return nil, "", audit.Errorf(audit.EINVALID, "the checkpoint key is %T, want an Ed25519 key", key.Public())
	}
	vkey, err := note.NewEd25519VerifierKey(name, pub)
	if err != nil {
		return nil, "", audit.Wrap(audit.EINVALID, err, "checkpoint key name %q", name)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, "", audit.Wrap(audit.EINVALID, err, "checkpoint key name %q", name)
	}
	return signer{name: name, hash: v.KeyHash(), key: key}, vkey, nil
}
