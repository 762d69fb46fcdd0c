package api_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// TestTheOpenAPIEventSchemaIsTheType: the Event schema of the served
// document names exactly the fields of audit.Event (found by reflection),
// at every level, refuses any other member, and takes the answer of an
// event with every field set.
func TestTheOpenAPIEventSchemaIsTheType(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	ref := doc.Components.Schemas["Event"]
	if ref == nil || ref.Value == nil {
		t.Fatal("no Event schema")
	}
	var inSchema []string
	var walk func(prefix string, s *openapi3.Schema)
	walk = func(prefix string, s *openapi3.Schema) {
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("the Event schema at %q takes members it does not name: set additionalProperties false", prefix)
		}
		for name, p := range s.Properties {
			if p.Value.Type.Is("object") && len(p.Value.Properties) > 0 {
				walk(prefix+name+".", p.Value)
				continue
			}
			inSchema = append(inSchema, prefix+name)
		}
	}
	walk("", ref.Value)
	e := schematest.Full(t)
	var inType []string
	for _, l := range schematest.Leaves(e) {
		inType = append(inType, l.Path)
	}
	sort.Strings(inSchema)
	sort.Strings(inType)
	if strings.Join(inSchema, " ") != strings.Join(inType, " ") {
		t.Fatalf("the OpenAPI Event schema names\n%v\naudit.Event has\n%v", inSchema, inType)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if err := ref.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		t.Fatalf("the answer of an event with every field set breaks the Event schema: %v", err)
	}
}

// TestTheOpenAPIMaskFieldsAreTheDomains: the fields the OpenAPI document
// lets a stream mask are stream.MaskFields (the actor's personal
// fields, found on the type), and every actor the document describes is
// the one Actor component.
func TestTheOpenAPIMaskFieldsAreTheDomains(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, v := range doc.Components.Schemas["StreamMaskField"].Value.Enum {
		enum = append(enum, v.(string))
	}
	want := append([]string(nil), stream.MaskFields...)
	sort.Strings(enum)
	sort.Strings(want)
	if strings.Join(enum, ",") != strings.Join(want, ",") {
		t.Fatalf("OpenAPI StreamMaskField %v, the domain's %v", enum, want)
	}
	for _, at := range [][2]string{{"Event", "actor"}, {"HistoryEntry", "actor"}, {"Restore", "requestedBy"}, {"RestoreRequest", "requestedBy"}} {
		if p := doc.Components.Schemas[at[0]].Value.Properties[at[1]]; p == nil || p.Ref != "#/components/schemas/Actor" {
			t.Errorf("%s.%s is not the Actor component", at[0], at[1])
		}
	}
}
