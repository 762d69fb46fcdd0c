package signing

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
)

// CanonicalJSON is v as JSON without its "signature" member, object keys
// sorted by their UTF-8 bytes, no white space, strings escaped as Go's
// encoding/json does without HTML escaping, numbers as written (the
// canonical form a digest's or a stream manifest's signature covers).
func CanonicalJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&m)
	delete(m, "signature")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // maps encode with sorted keys
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// KeyID names a public key: the first 16 hex digits of the SHA-256 of its
// PKIX (DER) encoding, so the same key has the same id everywhere.
func KeyID(pub ed25519.PublicKey) string { return KeyFingerprint(pub)[:16] }

// KeyFingerprint is the SHA-256 of a public key's PKIX encoding, in hex:
// what an auditor compares with a fingerprint recorded out of band. The
// key id is its first 16 characters.
func KeyFingerprint(pub ed25519.PublicKey) string {
	der, _ := x509.MarshalPKIXPublicKey(pub)
	h := sha256.Sum256(der)
	return hex.EncodeToString(h[:])
}
