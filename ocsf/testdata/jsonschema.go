//go:build ignore

// jsonschema writes the JSON Schema (draft-07) of OCSF event classes from
// a compiled OCSF schema, the way the OCSF server's schema endpoint does
// (/schema/classes/<name>?profiles=…, lib/schema/json_schema.ex of
// github.com/ocsf/ocsf-server): one property per attribute of the class,
// the required ones listed, enums of the *_id attributes as enums, the
// "at least one" and "just one" constraints as anyOf and oneOf, every
// object the class reaches under $defs, and no other property allowed.
// It is a port, not a call, because the server (Elixir) is not installable
// here. Attributes of a profile not asked for are left out, as the server
// leaves them out.
//
// The compiled schema is OCSF's own: ocsf-lib-py's
// schema_cache/schema-<version>.json (github.com/ocsf/ocsf-lib-py).
//
//	go run ocsf/testdata/jsonschema.go -in schema-1.5.0.json -profiles datetime \
//	  -out ocsf/testdata/ocsf-1.5.0 authentication account_change api_activity
package main

import (
	"encoding/json"
	"flag"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type attribute struct {
	Caption     string                     `json:"caption"`
	Type        string                     `json:"type"`
	ObjectType  string                     `json:"object_type"`
	Requirement string                     `json:"requirement"`
	IsArray     bool                       `json:"is_array"`
	Enum        map[string]json.RawMessage `json:"enum"`
	Profile     *string                    `json:"profile"`
}

type item struct {
	Caption     string               `json:"caption"`
	Name        string               `json:"name"`
	UID         *int                 `json:"uid"`
	Attributes  map[string]attribute `json:"attributes"`
	Constraints struct {
		JustOne    []string `json:"just_one"`
		AtLeastOne []string `json:"at_least_one"`
	} `json:"constraints"`
}

type compiled struct {
	Version string                           `json:"version"`
	Classes map[string]item                  `json:"classes"`
	Objects map[string]item                  `json:"objects"`
	Types   map[string]struct{ Type string } `json:"types"`
}

var (
	schema   compiled
	profiles = map[string]bool{}
)

func main() {
	in := flag.String("in", "", "compiled OCSF schema (ocsf-lib-py schema_cache)")
	out := flag.String("out", "", "directory to write <class>.schema.json to")
	prof := flag.String("profiles", "", "comma-separated profiles to keep")
	flag.Parse()
	raw, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		log.Fatal(err)
	}
	for _, p := range strings.Split(*prof, ",") {
		if p != "" {
			profiles[p] = true
		}
	}
	for _, name := range flag.Args() {
		class, ok := schema.Classes[name]
		if !ok {
			log.Fatalf("no class %q in OCSF %s", name, schema.Version)
		}
		doc := encodeItem(filter(class))
		doc["$schema"] = "http://json-schema.org/draft-07/schema#"
		doc["$id"] = "https://schema.ocsf.io/schema/classes/" + name
		defs := map[string]any{}
		reach(class, map[string]bool{}, defs)
		if len(defs) > 0 {
			doc["$defs"] = defs
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*out, name+".schema.json"), append(b, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// filter leaves out the attributes of profiles not asked for.
func filter(it item) item {
	kept := map[string]attribute{}
	for k, a := range it.Attributes {
		if a.Profile == nil || profiles[*a.Profile] {
			kept[k] = a
		}
	}
	it.Attributes = kept
	return it
}

// reach adds to defs every object it reaches, each once.
func reach(it item, seen map[string]bool, defs map[string]any) {
	for _, a := range filter(it).Attributes {
		if a.ObjectType == "" || seen[a.ObjectType] {
			continue
		}
		seen[a.ObjectType] = true
		obj, ok := schema.Objects[a.ObjectType]
		if !ok {
			log.Fatalf("no object %q", a.ObjectType)
		}
		defs[strings.ReplaceAll(a.ObjectType, "/", "_")] = encodeItem(filter(obj))
		reach(obj, seen, defs)
	}
}

func encodeItem(it item) map[string]any {
	props := map[string]any{}
	var required, justOne, atLeastOne []string
	for name, a := range it.Attributes {
		switch {
		case slices.Contains(it.Constraints.JustOne, name):
			justOne = append(justOne, name)
		case slices.Contains(it.Constraints.AtLeastOne, name):
			atLeastOne = append(atLeastOne, name)
		case a.Requirement == "required":
			required = append(required, name)
		}
		props[name] = encodeArray(encodeAttribute(a), a.IsArray)
	}
	doc := map[string]any{"title": it.Caption, "type": "object", "properties": props, "additionalProperties": len(props) == 0}
	if len(required) > 0 {
		slices.Sort(required)
		doc["required"] = required
	}
	slices.Sort(justOne)
	slices.Sort(atLeastOne)
	if len(justOne) > 0 {
		var oneOf []any
		for _, n := range justOne {
			others := slices.DeleteFunc(slices.Clone(justOne), func(o string) bool { return o == n })
			oneOf = append(oneOf, map[string]any{"required": []string{n}, "not": map[string]any{"required": others}})
		}
		doc["oneOf"] = oneOf
	}
	if len(atLeastOne) > 0 {
		var anyOf []any
		for _, n := range atLeastOne {
			anyOf = append(anyOf, map[string]any{"required": []string{n}})
		}
		doc["anyOf"] = anyOf
	}
	return doc
}

func encodeAttribute(a attribute) map[string]any {
	s := map[string]any{"title": a.Caption}
	switch {
	case a.ObjectType != "":
		s["$ref"] = "#/$defs/" + strings.ReplaceAll(a.ObjectType, "/", "_")
	case a.Type == "integer_t":
		s["type"] = "integer"
		putEnum(s, a, func(k string) any { n, err := strconv.Atoi(k); must(err); return n })
	case a.Type == "string_t":
		s["type"] = "string"
		putEnum(s, a, func(k string) any { return k })
	case a.Type == "json_t":
	default:
		s["type"] = encodeType(a.Type)
	}
	return s
}

func putEnum(s map[string]any, a attribute, conv func(string) any) {
	if a.Enum == nil {
		return
	}
	keys := slices.Collect(maps.Keys(a.Enum))
	var vals []any
	if s["type"] == "integer" {
		slices.SortFunc(keys, func(x, y string) int { i, _ := strconv.Atoi(x); j, _ := strconv.Atoi(y); return i - j })
	} else {
		slices.Sort(keys)
	}
	for _, k := range keys {
		vals = append(vals, conv(k))
	}
	if len(vals) == 1 {
		s["const"] = vals[0]
	} else {
		s["enum"] = vals
	}
}

// encodeType follows a type to its base: string, integer, number, boolean.
func encodeType(t string) string {
	base := t
	if d, ok := schema.Types[t]; ok && d.Type != "" {
		base = d.Type
	}
	switch base {
	case "string_t":
		return "string"
	case "integer_t", "long_t":
		return "integer"
	case "float_t":
		return "number"
	case "boolean_t":
		return "boolean"
	}
	return t
}

func encodeArray(s map[string]any, isArray bool) map[string]any {
	if !isArray {
		return s
	}
	items := map[string]any{}
	if t, ok := s["type"]; ok {
		items["type"] = t
		if e, ok := s["enum"]; ok {
			items["enum"] = e
			delete(s, "enum")
		}
	} else if r, ok := s["$ref"]; ok {
		items["$ref"] = r
		delete(s, "$ref")
	}
	s["type"] = "array"
	s["items"] = items
	return s
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
