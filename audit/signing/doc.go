// Package signing is how the service names the keys it signs files with
// and what a signature covers, split from the domain root (issue 54): a
// key's id and fingerprint (KeyID, KeyFingerprint, from its PKIX
// encoding, the same everywhere) and the canonical JSON a signature of a
// periodic export's digest or a stream's manifest covers (CanonicalJSON).
package signing
