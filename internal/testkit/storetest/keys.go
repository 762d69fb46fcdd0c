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

// testKeyRemoval: StoredKey reads without storing, and DeleteKey takes a
// key out for good (a signing key an earlier version kept in the store is
// moved out this way); deleting a missing key is no error.
func testKeyRemoval(t *testing.T, b Backend) {
	ctx := context.Background()
	if _, found, err := b.Keys.StoredKey(ctx, "never-stored"); err != nil || found {
		t.Fatalf("StoredKey of a missing name: found %v, %v", found, err)
	}
	if _, found, _ := b.Keys.StoredKey(ctx, "never-stored"); found {
		t.Fatal("StoredKey stored something")
	}
	if _, err := b.Keys.Key(ctx, "moved-out", []byte("private")); err != nil {
		t.Fatal(err)
	}
	if v, found, err := b.Keys.StoredKey(ctx, "moved-out"); err != nil || !found || string(v) != "private" {
		t.Fatalf("StoredKey: %q %v %v", v, found, err)
	}
	if err := b.Keys.DeleteKey(ctx, "moved-out"); err != nil {
		t.Fatal(err)
	}
	if _, found, err := b.Keys.StoredKey(ctx, "moved-out"); err != nil || found {
		t.Fatalf("a deleted key is still found (%v)", err)
	}
	if err := b.Keys.DeleteKey(ctx, "moved-out"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
	if v, _ := b.Keys.Key(ctx, "moved-out", []byte("fresh")); string(v) != "fresh" {
		t.Fatalf("after the deletion the name takes a new key; got %q", v)
	}
}
