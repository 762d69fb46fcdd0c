package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// testRestores: a restore is created once per idempotency key (the same
// key returns the first record), is read only by its tenant, is due until
// delivered and in time order, and updates are compare-and-set.
func testRestores(t *testing.T, b Backend) {
	ctx := context.Background()
	const tenantA, tenantB = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d", "1b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d4e"
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec := func(tenant, key string, next time.Duration, reason string) audit.RestoreRecord {
		return audit.RestoreRecord{RestoreRequest: audit.RestoreRequest{RequestID: audit.RestoreRequestID(tenant, key), TenantID: tenant,
			Resource: audit.Resource{Type: "ivr", ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"}, SourceEventID: "evt_audit_x", Version: audit.RestoreBefore,
			State: json.RawMessage(`{"a":1}`), OmittedFields: []string{}, Reason: reason, CreatedAt: audit.NewTimestamp(now)},
			IdempotencyKey: key, Status: audit.RestorePending, NextAttemptAt: now.Add(next)}
	}
	first, created, err := b.Restores.CreateRestore(ctx, rec(tenantA, "k1", 0, "first"))
	if err != nil || !created || first.Rev == "" {
		t.Fatalf("create: %+v %v %v", first, created, err)
	}
	again, created, err := b.Restores.CreateRestore(ctx, rec(tenantA, "k1", 0, "second"))
	if err != nil || created || again.Reason != "first" {
		t.Fatalf("the same key again must return the first request: %+v %v %v", again, created, err)
	}
	if _, created, err := b.Restores.CreateRestore(ctx, rec(tenantB, "k1", 0, "b")); err != nil || !created {
		t.Fatalf("another tenant's same key is another request: %v %v", created, err)
	}
	if _, _, err := b.Restores.CreateRestore(ctx, rec(tenantA, "k2", time.Minute, "later")); err != nil {
		t.Fatal(err)
	}
	// B's request with the same key has its own id: A's id is not found
	// in B.
	if _, err := b.Restores.GetRestore(ctx, tenantB, first.RequestID); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("tenant B reading A's request: %v, want not found", err)
	}
	if _, err := b.Restores.GetRestore(ctx, tenantA, "rst_unknown"); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("unknown id: %v", err)
	}
	due, err := b.Restores.DueRestores(ctx, now, 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("due now: %d %v, want A's k1 and B's k1", len(due), err)
	}
	got, err := b.Restores.GetRestore(ctx, tenantA, first.RequestID)
	if err != nil || got.Reason != "first" {
		t.Fatalf("get: %+v %v", got, err)
	}
	stale := got
	delivered := now.Add(time.Second)
	got.DeliveredAt, got.Attempts = &delivered, 1
	if err := b.Restores.UpdateRestore(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if err := b.Restores.UpdateRestore(ctx, &stale); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a stale update: %v, want conflict", err)
	}
	due, err = b.Restores.DueRestores(ctx, now.Add(2*time.Minute), 10)
	if err != nil || len(due) != 2 || due[0].TenantID != tenantB || due[1].IdempotencyKey != "k2" {
		t.Fatalf("due later: %+v %v, want B's k1 then A's k2 (A's k1 is delivered)", due, err)
	}
}
