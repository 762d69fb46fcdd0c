// Package eventschema derives the event's schemas in api/openapi.json and
// docs/schemas/data-line-v1.json from the event's one description
// (audit.EventFields): `go generate ./api` rewrites them, and
// TestTheEventSchemasAreGenerated fails when a committed file differs.
//
// The table decides which properties the Event schema, its actor (the
// Actor component) and its resource have, in which order, which are
// required (the fields that are not Optional), and the StreamMaskField
// enum (the Personal fields). A property already in the document keeps
// its schema, written by hand (its pattern, format, enum, description): a
// new field starts as its kind's (a string, a boolean, an object) and may
// be refined in the document, where the generator keeps it. The data-line
// schema is the OpenAPI Event with its references inlined under the
// data line's own title and description.
package eventschema

import (
	"fmt"
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// OpenAPI returns the OpenAPI document b with the event's schemas
// derived from the table.
func OpenAPI(b []byte) ([]byte, error) {
	doc, err := parse(b)
	if err != nil {
		return nil, err
	}
	schemas := doc.path("components", "schemas")
	event := schemas.get("Event")
	if event == nil || schemas.get("StreamMaskField") == nil {
		return nil, fmt.Errorf("the document has no Event or StreamMaskField schema")
	}
	if err := syncObject(doc, event, ""); err != nil {
		return nil, err
	}
	schemas.get("StreamMaskField").set("enum", strs(stream.MaskFields))
	return format(doc), nil
}

// DataLine returns the data-line schema: the members of the old one
// before its type (its $schema, $id, title and description), then the
// OpenAPI document's Event with its references inlined.
func DataLine(openapi, old []byte) ([]byte, error) {
	doc, err := parse(openapi)
	if err != nil {
		return nil, err
	}
	prev, err := parse(old)
	if err != nil {
		return nil, err
	}
	out := object()
	for _, m := range prev.members {
		if m.name == "type" {
			break
		}
		out.members = append(out.members, m)
	}
	event, err := inline(doc, doc.path("components", "schemas", "Event"))
	if err != nil {
		return nil, err
	}
	out.members = append(out.members, event.members...)
	return format(out), nil
}

// syncObject gives the object schema of the fields under parent ("" the
// event itself) the table's properties and required list.
func syncObject(doc, schema *node, parent string) error {
	props := schema.get("properties")
	if props == nil {
		return fmt.Errorf("the schema of %q has no properties", parent)
	}
	var members []member
	var required []string
	done := map[string]bool{}
	for i := range audit.EventFields {
		f := &audit.EventFields[i]
		key, required1 := f.Key(), !f.Optional
		switch {
		case parent == "" && f.Parent() != "": // an object of the event
			key = f.Parent()
			if done[key] {
				continue
			}
			required1 = hasRequired(key)
		case f.Parent() != parent:
			continue
		}
		done[key] = true
		v := props.get(key)
		if v == nil {
			v = kindSchema(f, key != f.Key())
		}
		if key != f.Key() {
			target, err := resolve(doc, v)
			if err != nil {
				return err
			}
			if err := syncObject(doc, target, key); err != nil {
				return err
			}
		}
		members = append(members, member{key, v})
		if required1 {
			required = append(required, key)
		}
	}
	schema.set("required", strs(required))
	schema.set("properties", object(members...))
	return nil
}

func hasRequired(parent string) bool {
	for i := range audit.EventFields {
		if f := &audit.EventFields[i]; f.Parent() == parent && !f.Optional {
			return true
		}
	}
	return false
}

// kindSchema is the schema a new field starts with.
func kindSchema(f *audit.EventField, isObject bool) *node {
	switch {
	case isObject:
		return object(member{"type", str("object")}, member{"additionalProperties", &node{kind: 'f', raw: []byte("false")}},
			member{"required", strs(nil)}, member{"properties", object()})
	case f.Kind == audit.KindBool:
		return object(member{"type", str("boolean")})
	case f.Kind == audit.KindRaw || f.Kind == audit.KindDiff:
		return object(member{"type", str("object")})
	}
	return object(member{"type", str("string")})
}

// resolve follows a schema's $ref within the document.
func resolve(doc, schema *node) (*node, error) {
	ref := schema.get("$ref")
	if ref == nil {
		return schema, nil
	}
	name, ok := strings.CutPrefix(strings.Trim(string(ref.raw), `"`), "#/components/schemas/")
	target := doc.path("components", "schemas", name)
	if !ok || target == nil {
		return nil, fmt.Errorf("unresolved reference %s", ref.raw)
	}
	return target, nil
}

// inline copies schema with every reference replaced by its target, less
// the target's description (which speaks of the API's objects).
func inline(doc, schema *node) (*node, error) {
	if schema == nil {
		return nil, fmt.Errorf("no Event schema")
	}
	if schema.kind == '{' && schema.get("$ref") != nil {
		target, err := resolve(doc, schema)
		if err != nil {
			return nil, err
		}
		c := object()
		for _, m := range target.members {
			if m.name != "description" {
				c.members = append(c.members, m)
			}
		}
		return inline(doc, c)
	}
	c := &node{kind: schema.kind, raw: schema.raw}
	for _, m := range schema.members {
		v, err := inline(doc, m.value)
		if err != nil {
			return nil, err
		}
		c.members = append(c.members, member{m.name, v})
	}
	for _, item := range schema.items {
		v, err := inline(doc, item)
		if err != nil {
			return nil, err
		}
		c.items = append(c.items, v)
	}
	return c, nil
}
