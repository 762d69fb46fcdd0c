package export_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// TestEveryFieldInTheCSV: each field of audit.Event has its column, or is
// left out of the CSV for a reason written here.
func TestEveryFieldInTheCSV(t *testing.T) {
	e := schematest.Full(t)
	var buf bytes.Buffer
	w, err := export.NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&e); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	cell := map[string]any{}
	for i, col := range rows[0] {
		cell[col] = rows[1][i]
	}
	place := schematest.Place{}
	for _, col := range audit.ExportColumns {
		place[col] = col
	}
	const wide = "the complete state is for the panel's compare and restore, not a spreadsheet cell; the diff column shows what changed, and JSON lines carry it"
	place["before"] = schematest.Omit(wide)
	place["after"] = schematest.Omit(wide)
	place["requestId"] = schematest.Omit("a correlation id for the producers' own logs; JSON lines carry it")
	place["restoredFrom"] = schematest.Omit("the restore request's id, shown in the panel's history; JSON lines carry it")
	schematest.Check(t, "the CSV export", e, place, func(col string) (any, bool) {
		v, ok := cell[col]
		if ok && (col == "crossTenant") {
			return v == "true", true
		}
		return v, ok
	})
}

// TestEveryFieldInJSONLines: a JSON line is the API answer, every field
// under its own name.
func TestEveryFieldInJSONLines(t *testing.T) {
	e := schematest.Full(t)
	var buf bytes.Buffer
	w, err := export.NewEncoder(audit.FormatJSONL, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&e); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the JSON lines export", e, schematest.Same(e), schematest.JSONLookup(t, buf.Bytes()))
}
