package storetest

import (
	"context"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// fullEvent sets every field of audit.Event, each to its own value
// (schematest.Full, which fails naming a field added to the type and not
// set there).
func fullEvent(t *testing.T) audit.Event { return schematest.Full(t) }

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
	res := searchAll(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: e.TenantID}, Sort: audit.DefaultSort, Page: 1, PageSize: 10})
	if len(res.Events) != 1 || !audit.SameEvent(&res.Events[0], &e) {
		t.Fatalf("SearchEvents: %+v\nwant %+v", res.Events, e)
	}
}

// testFresh: a Fresh search sees an event acknowledged just before it,
// without waiting for the store to make it visible.
func testFresh(t *testing.T, b Backend) {
	e := fullEvent(t)
	Write(t, b.Writer, []audit.Event{e})
	res := searchAll(t, b.Reader, audit.Query{Filter: audit.Filter{TenantID: e.TenantID}, Sort: audit.DefaultSort, Page: 1, PageSize: 1, NoTotal: true, Fresh: true})
	if len(res.Events) != 1 || res.Events[0].ID != e.ID {
		t.Fatalf("a fresh search right after the write: %+v", res.Events)
	}
}
