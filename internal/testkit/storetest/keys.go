package storetest

import (
	"context"
	"slices"
	"testing"
)

// testKeyRows: a store lists the rows of its keys table by name (none in
// a new store), for a verifier to name; nothing in the service reads
// their values (issue 53: no key is read from the store).
func testKeyRows(t *testing.T, b Backend) {
	ctx := context.Background()
	if rows, err := b.Keys.KeyRows(ctx); err != nil || len(rows) != 0 {
		t.Fatalf("a new store's key rows: %v %v", rows, err)
	}
	b.PlantKey(t, "retired-signing-public-key", []byte("-----BEGIN PUBLIC KEY-----"))
	b.PlantKey(t, "secret-mask-v1", make([]byte, 32))
	rows, err := b.Keys.KeyRows(ctx)
	if err != nil || !slices.Equal(rows, []string{"retired-signing-public-key", "secret-mask-v1"}) && !slices.Equal(rows, []string{"secret-mask-v1", "retired-signing-public-key"}) {
		t.Fatalf("key rows %v %v", rows, err)
	}
}
