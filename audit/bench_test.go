package audit_test

import (
	"encoding/json"
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
