package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/seal"
)

// testOnlyAccepted (issue 53): rows written with another key than the
// service's acceptance key, or with no tag, are stored but never sealed:
// the sealer names each (Unaccepted), seals the accepted rows written
// before and after them, and the store's verification, which holds the
// key, names each unaccepted; the accepted rows verify.
func testOnlyAccepted(t *testing.T, b LogBackend) {
	ctx := context.Background()
	d := NewDataset(60)
	a := d.Events
	Write(t, b.Writer, a[:10])
	forged := []audit.Event{a[10], a[11], a[12]}
	Write(t, b.WriterWith(t, accepttest.Other()), forged[:2])
	Write(t, b.WriterWith(t, nil), forged[2:])
	Write(t, b.Writer, a[13:])
	b.Visible(t)
	s, keys := testSealer(t, b, 0)
	sealAll(t, s)
	ls, err := b.Log.LogState(ctx, d.A)
	if err != nil || ls.Size != int64(len(a)-len(forged)) {
		t.Fatalf("log of %d leaves for %d accepted events: %v", ls.Size, len(a)-len(forged), err)
	}
	for _, e := range forged {
		if _, err := b.Log.LeafOf(ctx, d.A, e.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
			t.Fatalf("the unaccepted %s is a leaf: %v", e.ID, err)
		}
	}
	for _, e := range []audit.Event{a[9], a[13], a[len(a)-1]} {
		if _, err := b.Log.LeafOf(ctx, d.A, e.ID); err != nil {
			t.Fatalf("the accepted %s is no leaf: %v", e.ID, err)
		}
	}
	n, latest := s.Unaccepted()
	var named []string
	for _, u := range latest {
		named = append(named, u.EventID)
	}
	if n != int64(len(forged)) || len(named) != len(forged) || !slices.Contains(named, forged[0].ID) || !slices.Contains(named, forged[2].ID) {
		t.Fatalf("the sealer names %d unaccepted (%v), want %d", n, latest, len(forged))
	}
	scan, ok := b.Writer.(audit.EventScanner)
	if !ok {
		return
	}
	rep, err := seal.Verify(ctx, b.Log, scan, d.A, keys)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, e := range forged {
		want[e.ID] = "unaccepted"
	}
	WantFindings(t, rep, want, b.Log, scan, d.A)
}
