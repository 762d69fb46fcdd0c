package vlog

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/auditlog/auditlog/audit"

	"golang.org/x/mod/sumdb/note"
)

// Keys are the checkpoint keys a verifier pins for one deployment: the
// current one and those that signed before a rotation. A tenant's
// checkpoints are signed under the name of their origin
// (<deployment>/tenants/<tenant>, as C2SP tlog-checkpoint asks, and as
// a witness such as litewitness requires); a key pinned under the
// deployment's name verifies every tenant's log of that deployment (and
// the checkpoints signed under the deployment's name itself, as versions
// before the per-tenant name did), a key pinned under a tenant's origin
// only that tenant's. Keys is a note.Verifiers: a checkpoint verifies
// when any pinned key signed it under a name the key covers.
type Keys struct {
	keys []pinnedKey
	// witnesses are the pinned witnesses' keys (ParseWitnessKey), of
	// which quorum must have cosigned a checkpoint for it to open.
	witnesses []note.Verifier
	quorum    int
}

// pinnedKey is one Ed25519 key and the name it was pinned under.
type pinnedKey struct {
	name string
	pub  ed25519.PublicKey
}

// ParseKeys reads keys in note's verifier form (<name>+<hash>+<key>,
// as GET /api/log-key gives them), separated by commas, spaces or new
// lines. Errors: EINVALID for none, a key note refuses, a key that is not
// Ed25519, or keys of several deployments.
func ParseKeys(text string) (Keys, error) {
	var keys Keys
	for _, k := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		v, err := note.NewVerifier(k)
		if err != nil {
			return Keys{}, audit.Wrap(audit.EINVALID, err, "key %.40q… (want <name>+<hash>+<key>, as GET /api/log-key gives it)", k)
		}
		parts := strings.SplitN(k, "+", 3) // a name has no +; base64 may
		raw, _ := base64.StdEncoding.DecodeString(parts[len(parts)-1])
		if len(raw) != 1+ed25519.PublicKeySize || raw[0] != 1 {
			return Keys{}, audit.Errorf(audit.EINVALID, "key %.40q…: not an Ed25519 key", k)
		}
		p := pinnedKey{name: v.Name(), pub: ed25519.PublicKey(raw[1:])}
		if len(keys.keys) > 0 && deployment(p.name) != keys.Name() {
			return Keys{}, audit.Errorf(audit.EINVALID, "keys of two deployments: %s and %s", keys.Name(), deployment(p.name))
		}
		keys.keys = append(keys.keys, p)
	}
	if len(keys.keys) == 0 {
		return Keys{}, audit.Errorf(audit.EINVALID, "no key")
	}
	return keys, nil
}

// NewKeys pins pub under name (a deployment's name or a tenant's
// origin).
func NewKeys(name string, pub ...ed25519.PublicKey) Keys {
	var k Keys
	for _, p := range pub {
		k.keys = append(k.keys, pinnedKey{name: name, pub: p})
	}
	return k
}

// deployment is the deployment's part of a key name or an origin.
func deployment(name string) string {
	if i := strings.Index(name, "/tenants/"); i >= 0 {
		return name[:i]
	}
	return name
}

// Name is the deployment's name.
func (k Keys) Name() string {
	if len(k.keys) == 0 {
		return ""
	}
	return deployment(k.keys[0].name)
}

// Len is the number of pinned keys.
func (k Keys) Len() int { return len(k.keys) }

// covers reports whether a key pinned under pinned verifies signatures
// under name: its own name, and a deployment's key every origin of it.
func covers(pinned, name string) bool {
	return pinned == name || (!strings.Contains(pinned, "/tenants/") && strings.HasPrefix(name, pinned+"/tenants/"))
}

// Verifier implements note.Verifiers: the pinned key that covers name
// and has its hash, or the pinned witness of that name and hash. Errors:
// note.UnknownVerifierError.
func (k Keys) Verifier(name string, hash uint32) (note.Verifier, error) {
	if v, ok := k.logVerifier(name, hash); ok {
		return v, nil
	}
	for _, w := range k.witnesses {
		if w.Name() == name && w.KeyHash() == hash {
			return w, nil
		}
	}
	return nil, &note.UnknownVerifierError{Name: name, KeyHash: hash}
}

func (k Keys) logVerifier(name string, hash uint32) (note.Verifier, bool) {
	for _, p := range k.keys {
		if covers(p.name, name) && keyHash(name, p.pub) == hash {
			return ed25519Verifier{name: name, hash: hash, pub: p.pub}, true
		}
	}
	return nil, false
}

// WithWitnesses is k requiring the cosignatures of quorum of witnesses
// (1 ≤ quorum ≤ len(witnesses); no witnesses: none required). Errors:
// EINVALID for a quorum out of range.
func (k Keys) WithWitnesses(witnesses []note.Verifier, quorum int) (Keys, error) {
	if len(witnesses) == 0 {
		if quorum > 0 {
			return k, audit.Errorf(audit.EINVALID, "a quorum of %d witnesses, and no witness key", quorum)
		}
		return k, nil
	}
	if quorum < 1 || quorum > len(witnesses) {
		return k, audit.Errorf(audit.EINVALID, "a quorum of %d of %d witnesses: want 1 to %d", quorum, len(witnesses), len(witnesses))
	}
	k.witnesses, k.quorum = witnesses, quorum
	return k, nil
}

// LogOnly is k without the witnesses: the log's keys alone.
func (k Keys) LogOnly() Keys { return Keys{keys: k.keys} }

// Cosigned reports whether k requires witnesses' cosignatures.
func (k Keys) Cosigned() bool { return k.quorum > 0 }

// Policy says what k requires, for messages: "the log key" or "the log
// key and 2 of 3 witnesses (a, b, c)".
func (k Keys) Policy() string {
	if k.quorum == 0 {
		return "the log key of " + k.Name()
	}
	names := make([]string, len(k.witnesses))
	for i, w := range k.witnesses {
		names[i] = w.Name()
	}
	return fmt.Sprintf("the log key of %s and %d of %d witnesses (%s)", k.Name(), k.quorum, len(k.witnesses), strings.Join(names, ", "))
}

// VerifierKey is the key of pub under name in note's text form.
func VerifierKey(name string, pub ed25519.PublicKey) string {
	return fmt.Sprintf("%s+%08x+%s", name, keyHash(name, pub), base64.StdEncoding.EncodeToString(append([]byte{1}, pub...)))
}

// keyHash is note's key hash of an Ed25519 key (C2SP signed-note: the
// first four bytes of SHA-256 of the name, a new line, the algorithm byte
// 0x01 and the key).
func keyHash(name string, pub ed25519.PublicKey) uint32 {
	h := sha256.New()
	h.Write([]byte(name + "\n\x01"))
	h.Write(pub)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// ed25519Verifier is a note.Verifier of one key under one name.
type ed25519Verifier struct {
	name string
	hash uint32
	pub  ed25519.PublicKey
}

func (v ed25519Verifier) Name() string                { return v.name }
func (v ed25519Verifier) KeyHash() uint32             { return v.hash }
func (v ed25519Verifier) Verify(msg, sig []byte) bool { return ed25519.Verify(v.pub, msg, sig) }

// Open verifies a signed checkpoint and parses it: one of the log keys
// signed it, and, with witnesses, at least quorum of them cosigned it.
// Errors: EUNAUTHORIZED when no log key signed it or too few witnesses
// cosigned it, EINVALID for a note that is no checkpoint.
func (k Keys) Open(signed []byte) (Checkpoint, error) {
	n, err := note.Open(signed, k)
	if err != nil {
		return Checkpoint{}, audit.Wrap(audit.EUNAUTHORIZED, err, "the checkpoint does not verify with the pinned keys of %s (after a rotation, pin the new key too)", k.Name())
	}
	logSigned, cosigned := false, map[string]bool{}
	for _, sig := range n.Sigs {
		if _, ok := k.logVerifier(sig.Name, sig.Hash); ok {
			logSigned = true
		} else {
			cosigned[sig.Name] = true
		}
	}
	if !logSigned {
		return Checkpoint{}, audit.Errorf(audit.EUNAUTHORIZED, "the checkpoint does not verify with the pinned keys of %s (after a rotation, pin the new key too)", k.Name())
	}
	if len(cosigned) < k.quorum {
		return Checkpoint{}, audit.Errorf(audit.EUNAUTHORIZED, "the checkpoint is cosigned by %d of the %d witnesses it needs (%s)", len(cosigned), k.quorum, k.Policy())
	}
	return ParseCheckpoint(n.Text)
}
