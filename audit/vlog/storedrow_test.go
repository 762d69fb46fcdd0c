package vlog_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// checkStoredRow: any bytes give a row and never a panic; a row without
// Err is an event of the tenant filed under its own id, whose leaf
// encodes (valid JSON) and hashes.
func checkStoredRow(t *testing.T, key, tenant string, body []byte) {
	r := vlog.DecodeStoredRow(key, tenant, body)
	if r.Key != key {
		t.Fatalf("key %q, want %q", r.Key, key)
	}
	if r.Err != nil {
		if audit.ErrorCode(r.Err) != audit.EINVALID || audit.ErrorMessage(r.Err) == "" {
			t.Fatalf("%q: %v", body, r.Err)
		}
		return
	}
	if r.Event.ID != key || audit.NormalizeTenantID(r.Event.TenantID) != tenant {
		t.Fatalf("%q taken for %s of %s: %+v", body, key, tenant, r.Event)
	}
	if !json.Valid(vlog.LeafData(r.Event)) {
		t.Fatalf("%q: the leaf is not JSON: %s", body, vlog.LeafData(r.Event))
	}
	_ = vlog.LeafHash(r.Event)
}

func TestStoredRowsAreJudgedNeverCrashed(t *testing.T) {
	e := schematest.Full(t)
	good, _ := json.Marshal(e)
	other := e
	other.ID = "evt_audit_0190f5e2-7b1c-7d3e-9f4a-5b6c7d8e9f0a"
	otherBody, _ := json.Marshal(other)
	cases := map[string]struct {
		body    string
		problem string // "" for a good row
	}{
		"intact":                {string(good), ""},
		"invalid JSON":          {string(good[:len(good)/2]), "does not decode"},
		`"after": {""}`:         {strings.Replace(string(good), `"after":{"greeting"`, `"after":{""},"zz":{"greeting"`, 1), "does not decode"},
		"a number for a string": {strings.Replace(string(good), `"owner@x.example"`, `5`, 1), "actor.email"},
		"empty":                 {"", "does not decode"},
		"an array":              {`[1,2]`, "does not decode"},
		"another event":         {string(otherBody), "holds the event"},
		"another tenant":        {strings.Replace(string(good), e.TenantID, "00000000-0000-4000-8000-000000000009", 1), "another tenant"},
		"duplicate key":         {strings.Replace(string(good), `"action":`, `"action":"delete","action":`, 1), "more than once"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := vlog.DecodeStoredRow(e.ID, e.TenantID, []byte(c.body))
			switch {
			case c.problem == "" && r.Err != nil:
				t.Fatalf("an intact row: %v", r.Err)
			case c.problem != "" && (r.Err == nil || !strings.Contains(audit.ErrorMessage(r.Err), c.problem)):
				t.Fatalf("want %q, got %v", c.problem, r.Err)
			}
			checkStoredRow(t, e.ID, e.TenantID, []byte(c.body))
		})
	}
}

// FuzzStoredRow feeds arbitrary row bytes to the verifier's decoding.
func FuzzStoredRow(f *testing.F) {
	full := schematest.Full(f)
	good, _ := json.Marshal(full)
	f.Add(good)
	for _, s := range []string{`{"after":{""}}`, `{"id":5}`, ``, `null`, `{"diff":{"a":{"from":1}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkStoredRow(t, full.ID, full.TenantID, body) })
}
