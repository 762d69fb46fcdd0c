package elasticsearch_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

// TestBulkActionLineEscapes: the action line of a bulk create names the
// index and the id as JSON strings; plain ASCII takes the fast path, and
// anything else must still come out as valid JSON that reads back equal.
func TestBulkActionLineEscapes(t *testing.T) {
	for _, s := range []string{
		"auditlog-events-pro-7c9e6679-7425-40de-944b-e07fc1f90ae7",
		"evt_audit_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f",
		`say "hi"`, `back\slash`, "slash /", "tab\tnewline\nnul\x00", "<html>&amp;", "é, 日本, \u2028", "bad utf-8 \xff", "",
	} {
		var buf bytes.Buffer
		if err := elasticsearch.AppendBulkCreate(&buf, s, &audit.Event{ID: s}); err != nil {
			t.Fatal(err)
		}
		line, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
		var action struct {
			Create struct {
				Index string `json:"_index"`
				ID    string `json:"_id"`
			} `json:"create"`
		}
		if err := json.Unmarshal(line, &action); err != nil {
			t.Fatalf("%q: the action line is not JSON: %s (%v)", s, line, err)
		}
		want, _ := json.Marshal(s)
		var back string
		_ = json.Unmarshal(want, &back) // what the encoder makes of s (invalid UTF-8 replaced)
		if action.Create.Index != back || action.Create.ID != back {
			t.Fatalf("%q read back as index %q, id %q", s, action.Create.Index, action.Create.ID)
		}
	}
}
