package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/streaming/webhook"
	"github.com/google/uuid"
)

// testSaveProgress: a stream's progress saved within a delivery turn
// (SaveProgress, which a store may show to its lists later) is read back
// by id at once, and guards the next write like any write: the next
// SaveProgress or PutStream at the revision it returned is taken, one
// at the revision before it is a conflict. The PutStream that ends the
// turn is listed at once.
func testSaveProgress(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant := uuid.NewString()
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	st := stream.Stream{ID: uuid.NewString(), TenantID: tenant, Name: "relay", Format: stream.FormatEvent, State: stream.Active, CreatedAt: t0, UpdatedAt: t0,
		Destination: stream.NewDestination(&webhook.Config{URL: "https://siem.example.com/hook", Secret: "s3cret-s3cret-s3cret-s3cret-s3cret"})}
	if err := b.Streams.PutStream(ctx, &st); err != nil {
		t.Fatal(err)
	}
	before := st
	for i, cursor := range []uint64{500, 1000} {
		if err := st.Delivered(cursor, 500, t0.Add(time.Duration(i+1)*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := b.Streams.SaveProgress(ctx, &st); err != nil {
			t.Fatalf("progress to %d: %v", cursor, err)
		}
		got, err := b.Streams.Stream(ctx, tenant, st.ID)
		if err != nil || got.Cursor != cursor || got.Rev != st.Rev {
			t.Fatalf("read back by id after the progress to %d: cursor %d rev %q (want %q) %v", cursor, got.Cursor, got.Rev, st.Rev, err)
		}
	}
	if err := before.Pause("paused by an admin", t0); err != nil {
		t.Fatal(err)
	}
	if err := b.Streams.PutStream(ctx, &before); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a write at the revision before the progress: %v, want a conflict", err)
	}
	if err := b.Streams.PutStream(ctx, &st); err != nil {
		t.Fatalf("the turn's last write: %v", err)
	}
	list, err := b.Streams.Streams(ctx, tenant)
	if err != nil || len(list) != 1 || list[0].Cursor != 1000 || list[0].Rev != st.Rev || list[0].State != stream.Active {
		t.Fatalf("listed after the turn's last write: %+v %v, want cursor 1000 at rev %q", list, err, st.Rev)
	}
}
