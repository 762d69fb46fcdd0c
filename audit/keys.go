package audit

import (
	"context"
)

// KeyStore keeps the keys the service generates for itself (the
// secret-masking key when none is configured) in the store, so every
// process that uses the store shares them.
type KeyStore interface {
	// Key returns the key stored under name, storing fresh first when
	// there is none: the first value stored wins, and every later call,
	// from any process, returns it. Errors: EUNAVAILABLE.
	Key(ctx context.Context, name string, fresh []byte) ([]byte, error)
}
