package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/history"
	"github.com/auditlog/auditlog/audit/restorejob"
	"strings"
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
	rec := func(tenant, key string, next time.Duration, reason string) restorejob.Record {
		return restorejob.Record{Request: restorejob.Request{RequestID: restorejob.RequestID(tenant, key), TenantID: tenant,
			Resource: audit.Resource{Type: "ivr", ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"}, SourceEventID: "evt_audit_x", Version: restorejob.Before,
			State: json.RawMessage(`{"a":1}`), OmittedFields: []string{}, Reason: reason, CreatedAt: audit.NewTimestamp(now)},
			IdempotencyKey: key, Status: restorejob.Pending, NextAttemptAt: now.Add(next)}
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
	if _, err := b.Restores.GetRestore(ctx, tenantA, "9b0c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4"); audit.ErrorCode(err) != audit.ENOTFOUND {
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

// testRestoreOutcomes: the filter on restoredFrom finds the owner's
// outcome event of a request among the resource's versions, in its
// tenant only.
func testRestoreOutcomes(t *testing.T, b Backend) {
	const tenantA, tenantB = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d", "1b2c3d4e-5f6a-4b7c-9d8e-9f0a1b2c3d4e"
	const resource, reqID, otherReq = "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f", "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4", "8a9b0c1d-2e3f-5a4b-9c5d-6e7f8091a2b3"
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	event := func(n int, tenant, from string) audit.Event {
		e := audit.Event{ID: fmt.Sprintf("evt_audit_0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4%02d", n), Timestamp: audit.NewTimestamp(at.Add(time.Duration(n) * time.Second)),
			TenantID: tenant, Actor: audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "owner@x.example", Role: "service"},
			Action: audit.ActionUpdate, Resource: audit.Resource{Type: "ivr", ID: resource}, RestoredFrom: from,
			Diff: map[string]audit.Change{"greeting": {From: json.RawMessage(`"a"`), To: json.RawMessage(`"b"`)}}}
		e.Normalize()
		if err := e.Validate(at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		return e
	}
	Write(t, b.Writer, []audit.Event{event(1, tenantA, ""), event(2, tenantA, reqID), event(3, tenantA, otherReq), event(4, tenantB, reqID)})
	b.Visible(t)
	f := history.Filter(tenantA, "ivr", resource)
	f.RestoredFrom = strings.ToUpper(reqID)
	f.Normalize()
	res := searchAll(t, b.Reader, audit.Query{Filter: f, Sort: audit.DefaultSort, Page: 1, PageSize: 10})
	if len(res.Events) != 1 || res.Events[0].ID != event(2, tenantA, reqID).ID || res.Events[0].RestoredFrom != reqID {
		t.Fatalf("restoredFrom %s in tenant A: %+v, want event 2 only", reqID, res.Events)
	}
}
