package storetest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// fullEvent sets every field of audit.Event; fullEventIsFull keeps it so
// when a field is added.
func fullEvent(t *testing.T) audit.Event {
	at := time.Date(2026, 11, 22, 9, 30, 12, 345e6, time.UTC)
	e := audit.Event{
		ID: "evt_audit_1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a", Timestamp: audit.NewTimestamp(at), TenantID: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
		Actor:  audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "Owner@X.example", Role: "admin", IP: "2001:db8::7", UserAgent: "Mozilla/5.0 Firefox/133.0"},
		Action: audit.ActionUpdate, Resource: audit.Resource{Type: "ivr", ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"},
		Diff:        map[string]audit.Change{"greeting": {From: json.RawMessage(`"hi"`), To: json.RawMessage(`"hello"`)}},
		CrossTenant: true, Category: audit.CategoryCrossTenant, Outcome: audit.OutcomeFailure, Reason: "ticket INC-7",
		Before: json.RawMessage(`{"greeting":"hi","menu":[{"id":"m1","key":1}]}`), After: json.RawMessage(`{"greeting":"hello","menu":[{"id":"m1","key":1}]}`),
		RequestID: "req-42", RestoredFrom: "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4",
	}
	e.Normalize()
	if err := e.Validate(at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(e)
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			t.Fatalf("fullEvent leaves audit.Event.%s unset: set it, so that every store is seen to keep it", v.Type().Field(i).Name)
		}
	}
	return e
}

// testEveryField: an event with every field set reads back the same from
// GetEvent and SearchEvents: no store drops a field.
func testEveryField(t *testing.T, b Backend) {
	e := fullEvent(t)
	Write(t, b.Writer, []audit.Event{e})
	b.Visible(t)
	got, err := b.Reader.GetEvent(context.Background(), e.TenantID, e.ID)
	if err != nil || !audit.SameEvent(&got, &e) {
		t.Fatalf("GetEvent: %+v %v\nwant %+v", got, err, e)
	}
	res := search(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: e.TenantID}, Sort: audit.DefaultSort, Page: 1, PageSize: 10})
	if len(res.Events) != 1 || !audit.SameEvent(&res.Events[0], &e) {
		t.Fatalf("SearchEvents: %+v\nwant %+v", res.Events, e)
	}
}

// testFresh: a Fresh search sees an event acknowledged just before it,
// without waiting for the store to make it visible.
func testFresh(t *testing.T, b Backend) {
	e := fullEvent(t)
	Write(t, b.Writer, []audit.Event{e})
	res := search(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: e.TenantID}, Sort: audit.DefaultSort, Page: 1, PageSize: 1, NoTotal: true, Fresh: true})
	if len(res.Events) != 1 || res.Events[0].ID != e.ID {
		t.Fatalf("a fresh search right after the write: %+v", res.Events)
	}
}
