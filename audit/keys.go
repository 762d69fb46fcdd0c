package audit

import (
	"context"
)

// KeyStore keeps the keys the service generates for itself (the
// secret-masking key when none is configured) in the store, so every
// process that uses the store shares them. It never holds a key that
// signs the store's own log or exports: whoever can write the store could
// sign with it (cmd/auditlog/signingkey.go keeps that key in a file, and
// moves out one an earlier version kept here).
type KeyStore interface {
	// Key returns the key stored under name, storing fresh first when
	// there is none: the first value stored wins, and every later call,
	// from any process, returns it. Errors: EUNAVAILABLE.
	Key(ctx context.Context, name string, fresh []byte) ([]byte, error)
	// StoredKey returns the key stored under name, if any, storing
	// nothing. Errors: EUNAVAILABLE.
	StoredKey(ctx context.Context, name string) ([]byte, bool, error)
	// DeleteKey removes the key stored under name; a name with no key is
	// no error. Errors: EUNAVAILABLE.
	DeleteKey(ctx context.Context, name string) error
}
