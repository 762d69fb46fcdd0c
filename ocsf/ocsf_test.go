package ocsf_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/ocsf"
)

// schemas compiles the vendored OCSF 1.5.0 JSON Schemas (testdata/README.md
// says where they come from), by class uid.
func schemas(t *testing.T) map[int]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	out := map[int]*jsonschema.Schema{}
	for uid, name := range map[int]string{ocsf.ClassAuthentication: "authentication", ocsf.ClassAccountChange: "account_change", ocsf.ClassAPIActivity: "api_activity"} {
		s, err := c.Compile(filepath.Join("testdata", "ocsf-1.5.0", name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		out[uid] = s
	}
	return out
}

func validate(t *testing.T, s map[int]*jsonschema.Schema, raw []byte) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		ClassUID int `json:"class_uid"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		t.Fatal(err)
	}
	sch, ok := s[head.ClassUID]
	if !ok {
		return fmt.Errorf("class_uid %d is none of the three", head.ClassUID)
	}
	return sch.Validate(doc)
}

// Every event the generator makes, of every occurrence of the catalog and
// by the operator team, is a valid OCSF event of its class; so is each
// with its personal fields hashed or dropped, as a stream's masking
// leaves them.
func TestEveryGeneratedEventIsValidOCSF(t *testing.T) {
	s := schemas(t)
	g := gen.New(gen.Config{Seed: 43, Tenants: 5, WithIDs: true}, 20000)
	seen := map[string]bool{}
	for i := range 20000 {
		e := g.Next()
		switch i % 3 {
		case 1: // hashed, as a stream's masking hashes
			e.Actor.IP, e.Actor.Email, e.Actor.ID = "hmac-sha256:0a1b", "hmac-sha256:2c3d", "hmac-sha256:4e5f"
		case 2: // dropped
			e.Actor.IP, e.Actor.Email, e.Actor.ID, e.Actor.UserAgent = "", "", "", ""
		}
		raw, err := ocsf.Encode(e, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, s, raw); err != nil {
			t.Fatalf("event %d (%s %s) is not valid OCSF: %v\n%s", i, e.Action, e.Resource.Type, err, raw)
		}
		seen[kind(e.Action, e.Resource.Type, e.Outcome)] = true
		seen[fmt.Sprint("crossTenant=", e.CrossTenant)] = true
	}
	for _, c := range audit.Catalog {
		if c.Category != audit.CategoryCrossTenant && !seen[kind(c.Action, c.ResourceType, c.Outcome)] {
			t.Errorf("the generator made no %q: the test did not cover it", c.Occurrence)
		}
	}
	if !seen["crossTenant=true"] {
		t.Error("no operator-team event was generated")
	}
}

// kind is what tells the catalog's rows apart in an event (a logout and a
// forced logout are alike).
func kind(a audit.Action, resourceType string, outcome audit.Outcome) string {
	if outcome == "" {
		outcome = audit.OutcomeSuccess
	}
	return fmt.Sprint(a, " ", resourceType, " ", outcome)
}

// The validator is not vacuous: a field OCSF does not define, a required
// one missing, or a value outside an enum fails.
func TestTheSchemasRefuseWhatOCSFDoesNot(t *testing.T) {
	s := schemas(t)
	g := gen.New(gen.Config{Seed: 1, Tenants: 1, WithIDs: true}, 10)
	raw, err := ocsf.Encode(g.Next(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, s, raw); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(map[string]any){
		"an invented field":          func(m map[string]any) { m["tenant"] = "x" },
		"no time":                    func(m map[string]any) { delete(m, "time") },
		"an unknown severity":        func(m map[string]any) { m["severity_id"] = 7 },
		"an invented metadata":       func(m map[string]any) { m["metadata"].(map[string]any)["leaf"] = 7 },
		"a metadata without version": func(m map[string]any) { delete(m["metadata"].(map[string]any), "version") },
	} {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		if validate(t, s, b) == nil {
			t.Errorf("%s passed the schema", name)
		}
	}
}
