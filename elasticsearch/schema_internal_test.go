package elasticsearch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
	"github.com/auditlog/auditlog/mappings"
)

// docPlace is where each field of the event lands in the stored document
// (appendDoc): under its own name, but the timestamp under the data
// stream's @timestamp (timestamp is an alias of it in the mapping).
func docPlace(t *testing.T) schematest.Place {
	p := schematest.Same(schematest.Full(t))
	p["timestamp"] = "@timestamp"
	return p
}

// TestEveryFieldInTheDocument: each field of audit.Event is written into
// the document where docPlace says, each such place is in the explicit
// mapping (dynamic: strict would refuse the document otherwise), and
// DecodeSource reads the document back into the same event.
func TestEveryFieldInTheDocument(t *testing.T) {
	e := schematest.Full(t)
	place := docPlace(t)
	b := appendDoc(nil, &e, nil)
	schematest.Check(t, "the Elasticsearch document (appendDoc)", e, place, schematest.JSONLookup(t, b))

	var m struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(mappings.Events(), &m); err != nil {
		t.Fatal(err)
	}
	for field, at := range place {
		top, sub, nested := strings.Cut(at, ".")
		p, ok := m.Properties[top]
		if ok && nested {
			_, ok = p.Properties[sub]
		}
		if !ok {
			t.Errorf("field %s lands at %s, which mappings/events.json does not map", field, at)
		}
	}

	got, err := DecodeSource(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("DecodeSource(appendDoc(e)):\n%+v\nwant\n%+v", got, e)
	}
	for path, mut := range schematest.Mutations(e) {
		got, err := DecodeSource(appendDoc(nil, &mut, nil))
		if err != nil || !reflect.DeepEqual(got, mut) {
			t.Errorf("with %s changed, the document reads back as\n%+v\nwant\n%+v", path, got, mut)
		}
	}
}

// TestFreeTextIsTheTable (issues 54, 56): nothing is copied into search
// any more (documents of mapping version 6 carry their words), and the
// document's text holds the words of every Text field of audit.EventFields
// (which SQLite's search text reads too), each set to a word of its own.
func TestFreeTextIsTheTable(t *testing.T) {
	if strings.Contains(string(mappings.Events()), "copy_to") {
		t.Fatalf("mappings/events.json copies a field: %s", mappings.Events())
	}
	var e audit.Event
	for i := range audit.EventFields {
		f := &audit.EventFields[i]
		if f.Text {
			*f.Ptr(&e).(*string) = fmt.Sprintf("Marker%d Field", i)
		}
	}
	text := toDoc(&e).Text
	for i := range audit.EventFields {
		if f := &audit.EventFields[i]; f.Text && !slices.Contains(text, fmt.Sprintf("marker%d field", i)) {
			t.Errorf("the text %q lacks %s's words", text, f.Name)
		}
	}
}
