package audit_test

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/cursor"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

func BenchmarkDecodeEvent(b *testing.B) {
	raw, _ := json.Marshal(specEvent())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.DecodeEvent(raw, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeInvalidEvent(b *testing.B) {
	raw := []byte(`{"tenantId":42,"action":"publish","timestamp":"yesterday","actor":{"id":"x"},"diff":[]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.DecodeEvent(raw, now); err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	e := specEvent()
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Validate(now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCursorEncodeDecode(b *testing.B) {
	c := cursor.NewCodec([]byte("bench-key"))
	yes := true
	f := audit.Filter{TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Actions: []audit.Action{"access"}, ResourceTypes: []string{"recording"}, CrossTenant: &yes}
	s := audit.Sort{Field: audit.SortActorEmail}
	p := cursor.Cursor{After: audit.Position{Key: "ana.1@acme-contact.example", ID: "evt_audit_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f"}, Total: &audit.Total{Value: 10000, Relation: "gte"}}
	b.ReportAllocs()
	for b.Loop() {
		cur := c.Encode(p, f, s)
		if _, err := c.Decode(cur, f, s); err != nil {
			b.Fatal(err)
		}
	}
}
