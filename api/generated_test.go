package api_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/auditlog/auditlog/api/internal/eventschema"
)

// TestTheEventSchemasAreGenerated: the Event, Actor and StreamMaskField
// schemas of api/openapi.json and the data-line schema are what `go
// generate ./api` derives from audit.EventFields; a field added to the
// table without regenerating fails here.
func TestTheEventSchemasAreGenerated(t *testing.T) {
	doc, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	line, err := os.ReadFile("../docs/schemas/data-line-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := eventschema.OpenAPI(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, doc) {
		t.Errorf("api/openapi.json is not what the table derives: run go generate ./api\n%s", firstDifference(got, doc))
	}
	gotLine, err := eventschema.DataLine(doc, line)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotLine, line) {
		t.Errorf("docs/schemas/data-line-v1.json is not the OpenAPI Event inlined: run go generate ./api\n%s", firstDifference(gotLine, line))
	}
}

// firstDifference shows where two documents part.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return "derived: ..." + string(got[from:min(len(got), i+200)]) + "\ncommitted: ..." + string(want[from:min(len(want), i+200)])
}
