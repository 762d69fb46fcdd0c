package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
)

// testKeys: the first key stored under a name wins, for every caller,
// even when several processes start at once; names are independent.
func testKeys(t *testing.T, b Backend) {
	ctx := context.Background()
	got := make([][]byte, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = b.Keys.Key(ctx, "mask", []byte(fmt.Sprintf("candidate-%d", i)))
		}()
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i], got[0]) || !bytes.HasPrefix(got[0], []byte("candidate-")) {
			t.Fatalf("callers disagree on the key: %q and %q", got[i], got[0])
		}
	}
	later, err := b.Keys.Key(ctx, "mask", []byte("a later candidate"))
	if err != nil || !bytes.Equal(later, got[0]) {
		t.Fatalf("a later call got %q (%v), want the first key %q", later, err, got[0])
	}
	other, err := b.Keys.Key(ctx, "other", []byte("other key"))
	if err != nil || string(other) != "other key" {
		t.Fatalf("another name got %q (%v)", other, err)
	}
}
