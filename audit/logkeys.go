package audit

import (
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// LogKeys are the checkpoint keys a verifier pins for one deployment: the
// current one and those that signed before a rotation, all under the
// deployment's name (the checkpoints' origin is <name>/tenants/<tenant>).
// A checkpoint verifies when any of them signed it.
type LogKeys []note.Verifier

// ParseLogKeys reads keys in note's verifier form (<name>+<hash>+<key>,
// as GET /api/log-key gives them), separated by commas, spaces or new
// lines. Errors: EINVALID for none, a key note refuses, or keys of
// several names.
func ParseLogKeys(text string) (LogKeys, error) {
	var keys LogKeys
	for _, k := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		v, err := note.NewVerifier(k)
		if err != nil {
			return nil, Wrap(EINVALID, err, "key %.40q… (want <name>+<hash>+<key>, as GET /api/log-key gives it)", k)
		}
		if len(keys) > 0 && v.Name() != keys[0].Name() {
			return nil, Errorf(EINVALID, "keys of two deployments: %s and %s", keys[0].Name(), v.Name())
		}
		keys = append(keys, v)
	}
	if len(keys) == 0 {
		return nil, Errorf(EINVALID, "no key")
	}
	return keys, nil
}

// Name is the deployment's name.
func (k LogKeys) Name() string { return k[0].Name() }

// Open verifies a signed checkpoint with any of the keys and parses it.
// Errors: EUNAUTHORIZED when none of the keys signed it, EINVALID for a
// note that is no checkpoint.
func (k LogKeys) Open(signed []byte) (Checkpoint, error) {
	n, err := note.Open(signed, note.VerifierList(k...))
	if err != nil {
		return Checkpoint{}, Wrap(EUNAUTHORIZED, err, "the checkpoint does not verify with the pinned keys of %s (after a rotation, pin the new key too)", k.Name())
	}
	return ParseCheckpoint(n.Text)
}
