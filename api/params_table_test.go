package api

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIParametersAreTheParsersTables: each operation's query
// parameters in the OpenAPI document are exactly those its parser accepts
// (the tables of filter.go and exports.go), so the document, the allowed
// list and the parser cannot drift apart.
func TestOpenAPIParametersAreTheParsersTables(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	type param struct {
		Ref  string `json:"$ref"`
		Name string `json:"name"`
		In   string `json:"in"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []param `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	union := func(tables ...map[string]bool) []string {
		all := map[string]bool{}
		for _, tb := range tables {
			maps.Copy(all, tb)
		}
		return slices.Sorted(maps.Keys(all))
	}
	for _, tc := range []struct {
		path, method string
		want         []string
	}{
		{"/api/audit-logs", "get", union(filterParams, sortParams, pageParams)},
		{"/api/audit-logs/stats", "get", union(filterParams, statsParams)},
		{"/api/audit-logs/exports", "post", union(filterParams, sortParams, exportParams)},
		{"/api/audit-logs/export.csv", "get", union(filterParams, sortParams, exportParams)},
		{"/api/resources/{type}/{id}/history", "get", union(historyParams)},
		{"/api/resources/{type}/{id}/compare", "get", union(compareParams)},
	} {
		op, ok := doc.Paths[tc.path][tc.method]
		if !ok {
			t.Errorf("%s %s is not in the document", tc.method, tc.path)
			continue
		}
		var got []string
		for _, p := range op.Parameters {
			if name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
				if p, ok = doc.Components.Parameters[name]; !ok {
					t.Fatalf("%s %s: %s resolves to nothing", tc.method, tc.path, p.Ref)
				}
			}
			if p.In == "query" {
				got = append(got, p.Name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: the document lists %v, the parser accepts %v", tc.method, tc.path, got, tc.want)
		}
	}
}
