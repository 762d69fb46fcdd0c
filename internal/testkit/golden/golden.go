// Package golden compares test output with files under testdata/. Set
// AUDITLOG_UPDATE_GOLDEN=1 to rewrite the files from the current output.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Update reports whether golden files are being regenerated.
func Update() bool { return os.Getenv("AUDITLOG_UPDATE_GOLDEN") == "1" }

// Assert compares got with the file at path, or rewrites the file when
// Update() is true.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run with AUDITLOG_UPDATE_GOLDEN=1 to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from golden file %s (AUDITLOG_UPDATE_GOLDEN=1 rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// AssertJSON indents v (a value or raw JSON bytes) and compares it with
// the golden file at path.
func AssertJSON(t testing.TB, path string, v any) {
	t.Helper()
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	case json.RawMessage:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	out.WriteByte('\n')
	Assert(t, path, out.Bytes())
}
