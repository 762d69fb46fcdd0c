package periodicexport_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDigestsMatchTheirSchema: every digest the writer produces is valid
// against docs/schemas/digest-v3.json (the format written now), and the schema refuses one with a
// member it does not define.
func TestDigestsMatchTheirSchema(t *testing.T) {
	schema := loadSchema(t, "../docs/schemas/digest-v3.json")
	dir, _ := chain(t)
	digests, _ := filepath.Glob(filepath.Join(dir, "exports", tenant, "digest", "*", "*", "*", "*.json"))
	if len(digests) != 5 {
		t.Fatalf("%d digests", len(digests))
	}
	for _, p := range digests {
		var v map[string]any
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.VisitJSON(v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		v["extra"] = true
		if schema.VisitJSON(v) == nil {
			t.Fatal("the schema took an unknown member")
		}
	}
}

// TestDataLinesMatchTheirSchema: every line of the data files the writer
// produces is valid against docs/schemas/data-line-v1.json (the API's
// Event schema), and the schema refuses a line with a member it does not
// define.
func TestDataLinesMatchTheirSchema(t *testing.T) {
	schema := loadSchema(t, "../docs/schemas/data-line-v1.json")
	dir, _ := chain(t)
	files, _ := filepath.Glob(filepath.Join(dir, "exports", tenant, "*", "*", "*", "*.ndjson.gz"))
	lines := 0
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			var v map[string]any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			if err := schema.VisitJSON(v); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			v["extra"] = true
			if schema.VisitJSON(v) == nil {
				t.Fatal("the schema took an unknown member")
			}
			lines++
		}
		f.Close()
	}
	if lines == 0 {
		t.Fatal("no data line to check")
	}
}

// loadSchema reads a JSON Schema file.
func loadSchema(t *testing.T, path string) *openapi3.Schema {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var schema openapi3.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	return &schema
}
