package mappings_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/mappings"
	"github.com/auditlog/auditlog/mappings/internal/eventmapping"
)

// TestTheEventsMappingIsGenerated: events.json is what `go generate
// ./mappings` renders from audit.EventFields; a hand edit, or a field
// added to the table without regenerating, fails here.
func TestTheEventsMappingIsGenerated(t *testing.T) {
	got := eventmapping.Render()
	if !json.Valid(got) {
		t.Fatalf("the rendered mapping is not JSON:\n%s", got)
	}
	if !bytes.Equal(got, mappings.Events()) {
		t.Fatalf("mappings/events.json is not what the table renders: run go generate ./mappings\nrendered:\n%s", got)
	}
}
