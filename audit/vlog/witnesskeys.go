package vlog

import (
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"io"
	"strconv"
	"strings"

	"github.com/auditlog/auditlog/audit"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
)

// A witness cosigns a log's checkpoint after checking that it extends
// the last one it saw (C2SP tlog-witness); its cosignature is a note
// signature of the C2SP tlog-cosignature form cosignature/v1 (algorithm
// 0x04: an Ed25519 signature over "cosignature/v1", the time, and the
// checkpoint). A verifier that requires k witnesses' cosignatures refuses
// a checkpoint the log could have shown to it alone: a fork or a
// rewritten history is caught with no state kept by the verifier.

// ParseWitnessKey reads a witness's key in note's verifier form
// (<name>+<hash>+<base64 of 0x04 and the Ed25519 key>, as litewitness
// prints it). The verifier is torchwood's (filippo.io/torchwood, the
// library litewitness is built on); torchwood v0.6 builds one only from a
// signer, so it is given a signer that holds the public key alone and is
// never asked to sign. Errors: EINVALID for a malformed key, another
// algorithm, or a hash that is not the key's.
func ParseWitnessKey(vkey string) (note.Verifier, error) {
	parts := strings.SplitN(strings.TrimSpace(vkey), "+", 3)
	if len(parts) != 3 || len(parts[1]) != 8 {
		return nil, audit.Errorf(audit.EINVALID, "witness key %.40q…: want <name>+<hash>+<key>", vkey)
	}
	hash, err1 := strconv.ParseUint(parts[1], 16, 32)
	raw, err2 := base64.StdEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(raw) != 1+ed25519.PublicKeySize || raw[0] != 4 {
		return nil, audit.Errorf(audit.EINVALID, "witness key %.40q…: not a cosignature/v1 (Ed25519) key", vkey)
	}
	s, err := torchwood.NewCosignatureSigner(parts[0], publicOnly(raw[1:]))
	if err != nil {
		return nil, audit.Wrap(audit.EINVALID, err, "witness key %.40q…", vkey)
	}
	v := s.Verifier()
	if v.KeyHash() != uint32(hash) {
		return nil, audit.Errorf(audit.EINVALID, "witness key %.40q…: the hash is not the key's", vkey)
	}
	return v, nil
}

// publicOnly is a crypto.Signer that only knows its public key.
type publicOnly ed25519.PublicKey

func (p publicOnly) Public() crypto.PublicKey { return ed25519.PublicKey(p) }
func (p publicOnly) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, audit.Errorf(audit.EINTERNAL, "a witness key verifies only")
}

// ParseWitnessKeys reads witness keys separated by commas, spaces or new
// lines. Errors: EINVALID, naming the key.
func ParseWitnessKeys(text string) ([]note.Verifier, error) {
	var out []note.Verifier
	seen := map[string]bool{}
	for _, k := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		v, err := ParseWitnessKey(k)
		if err != nil {
			return nil, err
		}
		if seen[v.Name()] {
			return nil, audit.Errorf(audit.EINVALID, "two keys of the witness %s", v.Name())
		}
		seen[v.Name()] = true
		out = append(out, v)
	}
	return out, nil
}
