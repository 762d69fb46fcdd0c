package periodicexport_test

import (
	"encoding/json"
	"os"
	"testing"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, raw []byte, v any) {
	t.Helper()
	must(t, json.Unmarshal(raw, v))
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	must(t, os.WriteFile(path, b, 0o600))
}
