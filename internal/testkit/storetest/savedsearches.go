package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// testSavedSearches: a user's list starts empty, is created once,
// replaced only at the revision read, and is the user's own: another user
// of the tenant, or the same user id in another tenant, sees none of it.
func testSavedSearches(t *testing.T, b Backend) {
	ctx := context.Background()
	tenant, other, user := uuid.NewString(), uuid.NewString(), uuid.NewString()
	l, err := b.Saved.SavedSearches(ctx, tenant, user)
	if err != nil || l.Rev != "" || len(l.Items) != 0 || l.TenantID != tenant || l.UserID != user {
		t.Fatalf("a new user's list: %+v %v", l, err)
	}
	from := time.Date(2026, 11, 11, 8, 0, 0, 0, time.UTC)
	stale := l
	if _, err := l.Save(savedsearch.Search{ID: "s1", Name: "Grace's deletes", Query: "q=actor%3Agrace*+-action%3Aaccess", Range: "custom", From: &from}, true, from); err != nil {
		t.Fatal(err)
	}
	if err := b.Saved.PutSavedSearches(ctx, &l); err != nil || l.Rev == "" {
		t.Fatalf("create: %v (rev %q)", err, l.Rev)
	}
	if _, err := stale.Save(savedsearch.Search{ID: "s2", Name: "other", Range: "7d"}, true, from); err != nil {
		t.Fatal(err)
	}
	if err := b.Saved.PutSavedSearches(ctx, &stale); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a second create from the same empty read: %v, want a conflict", err)
	}
	read := l
	read.Items = append([]savedsearch.Search(nil), l.Items...)
	if _, err := l.Save(savedsearch.Search{ID: "s2", Name: "Failures", Query: "outcome=failure", Range: "24h"}, true, from); err != nil {
		t.Fatal(err)
	}
	if err := b.Saved.PutSavedSearches(ctx, &l); err != nil {
		t.Fatal(err)
	}
	if err := b.Saved.PutSavedSearches(ctx, &read); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a write at a stale revision: %v, want a conflict", err)
	}
	got, err := b.Saved.SavedSearches(ctx, tenant, user)
	if err != nil || got.Rev != l.Rev || len(got.Items) != 2 || got.Items[0].Query != "q=actor%3Agrace*+-action%3Aaccess" ||
		got.Items[0].From == nil || !got.Items[0].From.Equal(from) || got.Items[1].Name != "Failures" || !got.Items[1].CreatedAt.Equal(from) {
		t.Fatalf("read back %+v %v, want %+v", got, err, l)
	}
	for _, who := range [][2]string{{tenant, uuid.NewString()}, {other, user}} {
		if o, err := b.Saved.SavedSearches(ctx, who[0], who[1]); err != nil || len(o.Items) != 0 || o.Rev != "" {
			t.Fatalf("tenant %s user %s sees %+v %v", who[0], who[1], o, err)
		}
	}
}
