package export_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"unicode"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
)

// hostile are cell values that some spreadsheet, in some configuration,
// evaluates as a formula unless neutralised.
var hostile = []string{
	"=1+1", "+1+1", "-1+1", "@SUM(A1:A2)", "=cmd|' /C calc'!A0",
	" =1+1", "   @x", "\u00a0=1", "\u3000=1", "\u2003+1", "\ufeff=1", "\u200b=1", "\u2060-1",
	"＝1+1", "＋1", "－1", "＠x", " ＝1",
	"\t=1", "\r=1", "\n=1", "\x00=1", "\x00\x00+1", "\x0b=1", "\x7f=1",
	"a;=1+1", "a;@x", "a\t=1+1", "a; =1", "a,=1", `a";=1`, "a\r\n=1",
	"safe", "x=1", "a-b", "name@x.example",
}

// spreadsheetCells parses data the way a spreadsheet imports a CSV: with
// sep as the list separator, quotes honoured, NUL bytes dropped when
// dropNUL, and each cell's leading white space and control characters
// trimmed. It shares no code with the writer.
func spreadsheetCells(t *testing.T, data []byte, sep rune, dropNUL bool) [][2]string {
	t.Helper()
	if dropNUL {
		data = bytes.ReplaceAll(data, []byte{0}, nil)
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = sep, true, -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("separator %q: %v", sep, err)
	}
	var out [][2]string
	for _, rec := range recs {
		for _, cell := range rec {
			trimmed := strings.TrimLeftFunc(cell, func(r rune) bool {
				return unicode.IsSpace(r) || unicode.IsControl(r) || r == 0xfeff || r == 0x200b || r == 0x2060 || r == 0x200c || r == 0x200d
			})
			out = append(out, [2]string{cell, trimmed})
		}
	}
	return out
}

// evaluates reports whether a trimmed cell starts a formula, full-width
// signs folded to ASCII as East Asian spreadsheets do.
func evaluates(trimmed string) bool {
	folded := strings.NewReplacer("＝", "=", "＋", "+", "－", "-", "＠", "@").Replace(trimmed)
	return folded != "" && strings.ContainsRune("=+-@", rune(folded[0]))
}

// TestNoCellEvaluatesInAnySpreadsheet writes hostile values into every
// text column and reads the file back as spreadsheets with a comma, a
// semicolon or a tab as the list separator would, with and without NUL
// bytes dropped: no cell may start a formula once the reader has trimmed
// it (a neutralised one starts with the quote).
func TestNoCellEvaluatesInAnySpreadsheet(t *testing.T) {
	var buf bytes.Buffer
	w, err := export.NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	base := audit.Event{ID: audit.NewID(), Timestamp: audit.NewTimestamp(audit.MinTimestamp), TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
		Action: audit.ActionAccess, Resource: audit.Resource{Type: "recording", ID: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"}}
	for _, v := range hostile {
		e := base
		e.Actor = audit.Actor{ID: v, Email: v, Role: v, IP: v, UserAgent: v}
		e.Reason, e.Resource.Type, e.Category = v, v, audit.Category(v)
		if err := w.Write(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, sep := range []rune{',', ';', '\t'} {
		for _, dropNUL := range []bool{false, true} {
			for _, c := range spreadsheetCells(t, buf.Bytes(), sep, dropNUL) {
				raw, trimmed := c[0], c[1]
				if evaluates(trimmed) {
					t.Errorf("separator %q, NUL dropped %v: the cell %q would be evaluated (read as %q)", sep, dropNUL, raw, trimmed)
				}
				checked++
			}
		}
	}
	if checked < len(hostile)*2*8 {
		t.Fatalf("only %d cells read back", checked)
	}
}
