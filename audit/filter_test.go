package audit

import (
	"reflect"
	"testing"
)

func TestFilterNormalize(t *testing.T) {
	f := Filter{
		TenantID: " 7C9E6679-7425-40DE-944B-E07FC1F90AE7", ActorID: "0B6F5D3E-8C1A-4F7E-9A52-3C1D2E4F5A6B",
		ActorEmail: " Ana@ACME.example ", ResourceID: "D5D5D504-AFC6-4C1B-AF53-0078FCAB2445",
		Actions: []Action{ActionUpdate, ActionDelete, ActionUpdate}, ResourceTypes: []string{"queue", "ivr", "queue"},
		Q: "  refund* ",
	}
	f.Normalize()
	want := Filter{
		TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", ActorID: "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b",
		ActorEmail: "ana@acme.example", ResourceID: "d5d5d504-afc6-4c1b-af53-0078fcab2445",
		Actions: []Action{ActionDelete, ActionUpdate}, ResourceTypes: []string{"ivr", "queue"},
		Q: "refund*",
	}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("normalised:\n%+v\nwant\n%+v", f, want)
	}
	again := want
	again.Normalize()
	if !reflect.DeepEqual(again, want) {
		t.Fatalf("Normalize is not idempotent: %+v", again)
	}
	var empty Filter
	empty.Normalize()
	if empty.Actions != nil || empty.ResourceTypes != nil {
		t.Fatalf("an empty filter gained empty lists: %+v", empty)
	}
}

func TestNoTotalIsKnownWithoutCounting(t *testing.T) {
	if tot, known := (Query{NoTotal: true}).KnownTotal(); !known || tot != (Total{}) {
		t.Fatalf("NoTotal: %v %v", tot, known)
	}
	if _, known := (Query{}).KnownTotal(); known {
		t.Fatal("a first page without NoTotal must be counted")
	}
}
