// Package eventmapping renders mappings/events.json, the mapping of every
// tenant's events data stream, from the event's one description
// (audit.EventFields): `go generate ./mappings` writes the file, and
// TestTheEventsMappingIsGenerated fails when the committed one differs.
// A field is mapped by its kind (a string a keyword, a flag a boolean, a
// raw value or the diff an object kept in _source and not indexed). What
// free text finds (the fields the table marks Text, among others) is not
// copied anywhere: the document carries its words (text, words of the word
// model that the service computes: elasticsearch/words.go). The few fields Elasticsearch maps otherwise are named
// here (special): they are the store's decisions, not the event's.
package eventmapping

import (
	"fmt"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// Version is the mapping's _meta.version, which says which documents a
// data stream's mapping can read and find: 4 added words, 5 accept, 6
// the word model's text and reasonWords (and nothing copied into search).
// Bump it when a change alters either (a new field alone does not: an
// older mapping never saw it, and Bootstrap puts the current mapping on
// every existing stream).
const Version = 6

// special maps the fields whose mapping is not their kind's.
var special = map[string]string{
	"actor.email":     `"type": "keyword", "normalizer": "lowercase"`,           // filters match any case
	"actor.ip":        `"type": "ip"`,                                           // CIDR filters
	"actor.userAgent": `"type": "keyword", "ignore_above": 1024`,                // long agents are found by free text
	"reason":          `"type": "keyword", "index": false, "doc_values": false`, // found by its words (reasonWords)
	// Identifiers found by a term and never sorted on or grouped by: no
	// doc values (issue 58: about 36 and 8 bytes an event on disk, a
	// tenth of the events' bytes). Streams made before keep theirs:
	// see NoDocValuesSince.
	"resource.id": `"type": "keyword", "doc_values": false`,
	"requestId":   `"type": "keyword", "doc_values": false`,
}

// NoDocValuesSince lists the fields whose doc values were dropped after
// data streams were made with them. Elasticsearch refuses a mapping that
// changes a field's doc_values on an index that has it, so the mapping
// Bootstrap puts on existing streams (mappings.EventsUpgrade) leaves
// these fields out: a stream keeps each as it was made, and the template
// maps them anew in the backing indices made from then on.
var NoDocValuesSince = []string{"resource.id", "requestId"}

var byKind = map[audit.FieldKind]string{
	audit.KindString: `"type": "keyword"`,
	audit.KindBool:   `"type": "boolean"`,
	audit.KindRaw:    `"type": "object", "enabled": false`,
	audit.KindDiff:   `"type": "object", "enabled": false`,
}

// derived are the document's members that are not event fields, in the
// order the document writes them (elasticsearch/docenc.go): the words of
// its texts and of its reason, the acceptance tag. Those of documents
// written before version 6 follow (the reason as text, the changed
// values, the joined texts split, and search, which those documents'
// texts were copied into): such documents are found by them until the
// lifecycle pass writes them again.
const derived = `"text": {"type": "text", "analyzer": "whitespace", "norms": false, "index_options": "positions"}
"reasonWords": {"type": "text", "analyzer": "whitespace", "norms": false, "index_options": "positions"}
"accept": {"type": "binary"}
"reasonText": {"type": "text"}
"values": {"type": "text"}
"words": {"type": "text"}
"search": {"type": "text"}`

// Render returns the mapping. It panics on a table it cannot map (a
// parent object split in two, or free text on a field that is not a
// string): a generator's error, met by whoever changed the table.
func Render() []byte {
	var top []string
	var group []string
	parent := ""
	seen := map[string]bool{}
	flush := func() {
		if parent != "" {
			top = append(top, object(parent, group, "    "))
		}
		group, parent = nil, ""
	}
	for i := range audit.EventFields {
		f := &audit.EventFields[i]
		if f.Parent() != parent {
			flush()
			if f.Parent() != "" && seen[f.Parent()] {
				panic(fmt.Sprintf("eventmapping: the fields of %s are not together in audit.EventFields", f.Parent()))
			}
			parent, seen[f.Parent()] = f.Parent(), true
		}
		members := field(f)
		if parent == "" {
			top = append(top, members...)
		} else {
			group = append(group, members...)
		}
	}
	flush()
	top = append(top, strings.Split(derived, "\n")...)
	return []byte(fmt.Sprintf("{\n  \"_meta\": {\"managed_by\": \"auditlog\", \"version\": %d},\n  \"dynamic\": \"strict\",\n  \"properties\": {\n    %s\n  }\n}\n",
		Version, strings.Join(top, ",\n    ")))
}

// field returns the members f maps to: its own, and beside the
// timestamp its @timestamp, beside the diff the changed field names.
func field(f *audit.EventField) []string {
	key := f.Key()
	switch f.Kind {
	case audit.KindTime:
		return []string{`"@timestamp": {"type": "date", "format": "strict_date_optional_time||epoch_millis"}`,
			fmt.Sprintf(`"%s": {"type": "alias", "path": "@timestamp"}`, key)}
	case audit.KindDiff:
		return []string{member(key, byKind[f.Kind]), `"changedFields": {"type": "keyword"}`}
	}
	m, ok := special[f.Name]
	if !ok {
		m = byKind[f.Kind]
	}
	if f.Text && f.Kind != audit.KindString {
		panic(fmt.Sprintf("eventmapping: %s is free text but not a string", f.Name))
	}
	return []string{member(key, m)}
}

func member(key, mapping string) string { return fmt.Sprintf(`"%s": {%s}`, key, mapping) }

// object is a strict object of members, at indent.
func object(name string, members []string, indent string) string {
	in := indent + "    "
	return fmt.Sprintf("\"%s\": {\n%s  \"dynamic\": \"strict\",\n%s  \"properties\": {\n%s%s\n%s  }\n%s}",
		name, indent, indent, in, strings.Join(members, ",\n"+in), indent, indent)
}
