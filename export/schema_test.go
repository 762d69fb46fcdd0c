package export_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// TestEveryFieldInTheCSV: each field of audit.Event with a Column in
// audit.EventFields is its column, under its name, with its value.
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
	for _, f := range audit.EventFields {
		if f.Column > 0 {
			place[f.Name] = f.Name
		} else {
			place[f.Name] = schematest.Omit("not a column in audit.EventFields, which says why")
		}
	}
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
	w, err := export.NewEncoder(exportjob.FormatJSONL, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&e); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the JSON lines export", e, schematest.Same(e), schematest.JSONLookup(t, buf.Bytes()))
}
