package storetest

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// testCosigned: a tenant's cosigned checkpoint is none at first, then the
// one saved; a smaller tree, or the same tree with fewer signatures,
// never replaces it; concurrent savers leave the biggest; tenants are
// apart.
func testCosigned(t *testing.T, b LogBackend) {
	ctx := context.Background()
	cs, ok := b.Log.(vlog.CosignStore)
	if !ok {
		t.Fatal("the store keeps no cosigned checkpoints")
	}
	tenant, other := audit.NewID(), audit.NewID()
	if c, err := cs.CosignedCheckpoint(ctx, tenant); err != nil || c.Size != 0 {
		t.Fatalf("before any: %+v %v", c, err)
	}
	note := func(size, sigs int) vlog.CosignedCheckpoint {
		n := fmt.Sprintf("o\n%d\nroot\n\n", size)
		for i := 0; i < sigs; i++ {
			n += fmt.Sprintf("— w%d sig\n", i)
		}
		return vlog.CosignedCheckpoint{Size: int64(size), Note: n, At: time.UnixMilli(int64(1700000000000 + size)).UTC()}
	}
	save := func(c vlog.CosignedCheckpoint) {
		t.Helper()
		if err := cs.SaveCosigned(ctx, tenant, c); err != nil {
			t.Fatal(err)
		}
	}
	want := func(c vlog.CosignedCheckpoint) {
		t.Helper()
		got, err := cs.CosignedCheckpoint(ctx, tenant)
		if err != nil || got.Size != c.Size || got.Note != c.Note || !got.At.Equal(c.At) {
			t.Fatalf("got %+v (%v), want %+v", got, err, c)
		}
	}
	save(note(10, 2))
	want(note(10, 2))
	save(note(9, 5))
	save(note(10, 1))
	want(note(10, 2))
	save(note(10, 3))
	want(note(10, 3))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cs.SaveCosigned(ctx, tenant, note(20+i, 2)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want(note(27, 2))
	if c, err := cs.CosignedCheckpoint(ctx, other); err != nil || c.Size != 0 {
		t.Fatalf("another tenant: %+v %v", c, err)
	}
}
