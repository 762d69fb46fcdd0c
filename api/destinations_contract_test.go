package api_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"
)

// TestTheContractDescribesEveryRegisteredKind: the OpenAPI document's
// StreamDestination offers exactly the kinds the service registers
// (each destination's package under streaming/), and a property for
// every member of each kind's settings, so that a kind added without
// its contract (or one dropped) fails here.
func TestTheContractDescribesEveryRegisteredKind(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas struct {
				StreamDestination struct {
					Properties map[string]struct {
						Enum []string `json:"enum"`
					} `json:"properties"`
				} `json:"StreamDestination"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Components.Schemas.StreamDestination.Properties
	kinds := slices.Sorted(slices.Values(props["kind"].Enum))
	if !slices.Equal(kinds, stream.Kinds()) {
		t.Fatalf("the contract's kinds %v, the registered ones %v", kinds, stream.Kinds())
	}
	for _, k := range stream.Kinds() {
		for _, m := range stream.Members(k) {
			if _, ok := props[m]; !ok {
				t.Errorf("%s's member %q is not in StreamDestination", k, m)
			}
		}
	}
}
