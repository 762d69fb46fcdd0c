package cursor_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/cursor"
)

// TestCursorsBindTheNormalisedFilter: a cursor made for one spelling of a
// filter is accepted for another spelling of the same filter, and refused
// for a different filter.
func TestCursorsBindTheNormalisedFilter(t *testing.T) {
	c := cursor.NewCodec([]byte("k"))
	a := audit.Filter{TenantID: "t", ActorEmail: "A@x.example", Actions: []audit.Action{audit.ActionUpdate, audit.ActionDelete}}
	b := audit.Filter{TenantID: "t", ActorEmail: "a@x.example", Actions: []audit.Action{audit.ActionDelete, audit.ActionUpdate, audit.ActionDelete}}
	cur := c.Encode(cursor.Cursor{After: audit.Position{Millis: 1, ID: "evt"}}, a, audit.DefaultSort)
	if _, err := c.Decode(cur, b, audit.DefaultSort); err != nil {
		t.Fatalf("the same filter spelled differently refuses the cursor: %v", err)
	}
	if a.ActorEmail != "A@x.example" || a.Actions[0] != audit.ActionUpdate {
		t.Fatalf("binding changed the caller's filter: %+v", a)
	}
	other := audit.Filter{TenantID: "t", ActorEmail: "b@x.example", Actions: []audit.Action{audit.ActionDelete, audit.ActionUpdate}}
	if _, err := c.Decode(cur, other, audit.DefaultSort); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("another filter accepted the cursor: %v", err)
	}
}
