package storetest

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/seal"
)

// testRunLingers: a running sealer seals full batches back to back, and
// after a round that sealed fewer it waits seal.Config.Linger, not the
// idle pause, before the next, so that steady ingest is sealed in a few
// larger rounds. The rows written while it lingers are sealed by the
// next round.
func testRunLingers(t *testing.T, b LogBackend) {
	const batch, linger = 10, 400 * time.Millisecond
	d := NewDataset(80)
	var a []audit.Event
	for _, e := range d.Events {
		if e.TenantID == d.A {
			a = append(a, e)
		}
	}
	if len(a) < 28 {
		t.Fatalf("the dataset has %d events of its first tenant, want 28", len(a))
	}
	for _, w := range [][]audit.Event{a[:10], a[10:20], a[20:25]} {
		Write(t, b.Writer, w)
	}
	b.Visible(t)
	rounds, ack := make(chan time.Time), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	onSealed := func([]string) {
		select {
		case rounds <- time.Now():
			<-ack
		case <-ctx.Done():
		}
	}
	_, priv, _ := ed25519.GenerateKey(nil)
	s := seal.New(seal.Config{Origin: "auditlog.test", Batch: batch, Every: time.Minute, Linger: linger},
		seal.Deps{Store: b.Log, Key: priv, Accept: accepttest.Acceptor, OnSealed: onSealed})
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	next := func(k int) time.Time {
		t.Helper()
		select {
		case at := <-rounds:
			return at
		case <-time.After(20 * time.Second): // the idle pause is a minute
			t.Fatalf("round %d did not come within 20 s", k)
			return time.Time{}
		}
	}
	for k := 1; k <= 3; k++ {
		next(k)
		if k < 3 {
			ack <- struct{}{}
		}
	}
	// The third round sealed 5 of a batch of 10: the sealer lingers.
	Write(t, b.Writer, a[25:28])
	b.Visible(t)
	written := time.Now()
	ack <- struct{}{}
	fourth := next(4)
	ack <- struct{}{}
	if waited := fourth.Sub(written); waited < linger {
		t.Fatalf("the round after a partial one came %v after it, want the linger (%v) first", waited, linger)
	}
	ls, err := b.Log.LogState(context.Background(), a[0].TenantID)
	if err != nil || ls.Size != 28 {
		t.Fatalf("log of %d leaves after four rounds, want 28: %v", ls.Size, err)
	}
}
