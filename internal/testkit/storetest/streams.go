package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/streaming/s3stream"
	"github.com/auditlog/auditlog/streaming/webhook"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// testStreams: a tenant's streams are created once each, listed oldest
// first with every field kept, changed only at the revision read, deleted
// once; another tenant neither lists, reads, changes nor deletes them.
func testStreams(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant, other := uuid.NewString(), uuid.NewString()
	if l, err := b.Streams.Streams(ctx, tenant); err != nil || len(l) != 0 {
		t.Fatalf("a new tenant's streams: %+v %v", l, err)
	}
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	hook := stream.Stream{ID: uuid.NewString(), TenantID: tenant, Name: "SIEM relay", Format: stream.FormatEvent, Filter: "-action:access",
		Mask: map[string]string{"actor.ip": stream.MaskDrop}, State: stream.Active, Cursor: 7, CreatedAt: t0, UpdatedAt: t0,
		Parked:      []stream.ParkedRange{{From: 1, To: 3, Reason: "400 from the webhook", Attempts: 2, NextAt: t0.Add(time.Minute)}},
		Destination: stream.NewDestination(&webhook.Config{URL: "https://siem.example.com/hook", Secret: "s3cret-s3cret-s3cret-s3cret-s3cret", Headers: map[string]string{"X-Key": "k"}})}
	bucket := stream.Stream{ID: uuid.NewString(), TenantID: tenant, Name: "Lake", Format: stream.FormatEvent, State: stream.Paused, Reason: "paused by an admin",
		CreatedAt: t0.Add(time.Minute), UpdatedAt: t0.Add(time.Minute), Destination: stream.NewDestination(&s3stream.Config{Bucket: "acme-lake", Prefix: "audit"})}
	for _, st := range []*stream.Stream{&bucket, &hook} {
		if err := b.Streams.PutStream(ctx, st); err != nil || st.Rev == "" {
			t.Fatalf("create %s: %v (rev %q)", st.Name, err, st.Rev)
		}
	}
	again := hook
	again.Rev = ""
	if err := b.Streams.PutStream(ctx, &again); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a second create of one id: %v, want a conflict", err)
	}
	list, err := b.Streams.Streams(ctx, tenant)
	if err != nil || len(list) != 2 || list[0].ID != hook.ID || list[1].ID != bucket.ID {
		t.Fatalf("the list: %+v %v, want the webhook then the bucket (oldest first)", list, err)
	}
	got := list[0]
	if got.Rev != hook.Rev || !reflect.DeepEqual(got.Destination, hook.Destination) || got.Mask["actor.ip"] != stream.MaskDrop ||
		got.Filter != hook.Filter || got.Cursor != 7 || !got.CreatedAt.Equal(t0) || got.Format != stream.FormatEvent ||
		len(got.Parked) != 1 || got.Parked[0].To != 3 || got.Parked[0].Attempts != 2 || !got.Parked[0].NextAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("read back %+v, want %+v", got, hook)
	}
	stale := got
	if err := got.Delivered(42, 3, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := b.Streams.PutStream(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if err := stale.Pause("x", t0); err != nil {
		t.Fatal(err)
	}
	if err := b.Streams.PutStream(ctx, &stale); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a write at a stale revision: %v, want a conflict", err)
	}
	if one, err := b.Streams.Stream(ctx, tenant, hook.ID); err != nil || one.Cursor != 42 || one.State != stream.Active || one.Rev != got.Rev {
		t.Fatalf("after the delivery: %+v %v", one, err)
	}
	// Another tenant, with the same ids.
	if l, err := b.Streams.Streams(ctx, other); err != nil || len(l) != 0 {
		t.Fatalf("tenant B lists %+v %v", l, err)
	}
	if _, err := b.Streams.Stream(ctx, other, hook.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("tenant B reads A's stream: %v", err)
	}
	theirs := got
	theirs.TenantID = other
	if err := b.Streams.PutStream(ctx, &theirs); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("tenant B writes A's stream at its revision: %v, want not found", err)
	}
	if err := b.Streams.DeleteStream(ctx, other, hook.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("tenant B deletes A's stream: %v", err)
	}
	if err := b.Streams.DeleteStream(ctx, tenant, hook.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Streams.DeleteStream(ctx, tenant, hook.ID); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("a second delete: %v", err)
	}
	if l, err := b.Streams.Streams(ctx, tenant); err != nil || len(l) != 1 || l[0].ID != bucket.ID || l[0].Reason != "paused by an admin" {
		t.Fatalf("after the delete: %+v %v", l, err)
	}
}

// testStreamsAfter: the delivery loop's walk lists every tenant's streams
// once, by tenant then id, page after page, with their revisions.
func testStreamsAfter(t *testing.T, b Backend) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	want := map[stream.Key]string{}
	for i := range 3 {
		tenant := uuid.NewString()
		for j := range i + 1 {
			st := stream.Stream{ID: uuid.NewString(), TenantID: tenant, Name: fmt.Sprintf("s%d", j), Format: stream.FormatEvent, State: stream.Active,
				CreatedAt: t0, UpdatedAt: t0, Destination: stream.NewDestination(&webhook.Config{URL: "https://siem.example.com/hook"})}
			if err := b.Streams.PutStream(ctx, &st); err != nil {
				t.Fatal(err)
			}
			want[st.Key()] = st.Rev
		}
	}
	var after, last stream.Key
	seen := 0
	for pages := 0; ; pages++ {
		page, err := b.Streams.StreamsAfter(ctx, after, 2)
		if err != nil || len(page) > 2 || pages > 10000 {
			t.Fatalf("page %d: %d streams, %v", pages, len(page), err)
		}
		for _, st := range page {
			k := st.Key()
			if k.TenantID < last.TenantID || k.TenantID == last.TenantID && k.ID <= last.ID {
				t.Fatalf("%v listed after %v", k, last)
			}
			last = k
			if rev, ok := want[k]; ok {
				if st.Rev != rev {
					t.Fatalf("%v listed at revision %q, want %q", k, st.Rev, rev)
				}
				seen++
			}
		}
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1].Key()
	}
	if seen != len(want) {
		t.Fatalf("the walk listed %d of the %d streams", seen, len(want))
	}
}
