package audit_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/errtest"

	"github.com/auditlog/auditlog/audit"
)

// validJSON returns the spec event as a generic JSON map to mutate.
func validJSON(t testing.TB) map[string]any {
	b, err := json.Marshal(specEvent())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestValidationTable(t *testing.T) {
	sub := func(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }
	cases := []struct {
		name   string
		mutate func(m map[string]any)
		fields []string // the offending fields, sorted
	}{
		{"valid", func(m map[string]any) {}, nil},
		{"id absent is allowed (derived later)", func(m map[string]any) { delete(m, "id") }, nil},
		{"id without prefix", func(m map[string]any) { m["id"] = "019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f" }, []string{"id"}},
		{"id v4 is accepted (spec: a unique identifier)", func(m map[string]any) { m["id"] = "evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7" }, nil},
		{"id uppercase UUID is lowercased", func(m map[string]any) { m["id"] = "evt_audit_7C9E6679-7425-40DE-944B-E07FC1F90AE7" }, nil},
		{"id all in capitals is lowercased", func(m map[string]any) { m["id"] = "EVT_AUDIT_7C9E6679-7425-40DE-944B-E07FC1F90AE7" }, nil},
		{"a prefix that only resembles", func(m map[string]any) { m["id"] = "EVT-AUDIT-7C9E6679-7425-40DE-944B-E07FC1F90AE7" }, []string{"id"}},
		{"id nil UUID", func(m map[string]any) { m["id"] = "evt_audit_00000000-0000-0000-0000-000000000000" }, []string{"id"}},
		{"id not a UUID", func(m map[string]any) { m["id"] = "evt_audit_12345" }, []string{"id"}},
		{"missing tenantId", func(m map[string]any) { delete(m, "tenantId") }, []string{"tenantId"}},
		{"null tenantId", func(m map[string]any) { m["tenantId"] = nil }, []string{"tenantId"}},
		{"malformed tenantId", func(m map[string]any) { m["tenantId"] = "acme" }, []string{"tenantId"}},
		{"tenantId wrong type", func(m map[string]any) { m["tenantId"] = 42 }, []string{"tenantId"}},
		{"malformed actor.id", func(m map[string]any) { sub(m, "actor")["id"] = "7c9e6679742540de944be07fc1f90ae7" }, []string{"actor.id"}},
		{"malformed resource.id", func(m map[string]any) { sub(m, "resource")["id"] = "queue-1" }, []string{"resource.id"}},
		{"missing actor", func(m map[string]any) { delete(m, "actor") }, []string{"actor.email", "actor.id", "actor.role"}},
		{"actor not an object", func(m map[string]any) { m["actor"] = "bob" }, []string{"actor", "actor.email", "actor.id", "actor.role"}},
		{"bad email", func(m map[string]any) { sub(m, "actor")["email"] = "not-an-email" }, []string{"actor.email"}},
		{"bad ip", func(m map[string]any) { sub(m, "actor")["ip"] = "999.1.1.1" }, []string{"actor.ip"}},
		// The service's own records are never sent by a producer (issue 53):
		// the plan in force and retention's authority are read from them.
		{"the system actor", func(m map[string]any) { sub(m, "actor")["id"] = audit.SystemActor.ID }, []string{"actor.id"}},
		{"the system role", func(m map[string]any) { sub(m, "actor")["role"] = "system" }, []string{"actor.role"}},
		{"a forged plan change", func(m map[string]any) {
			m["actor"] = map[string]any{"id": audit.SystemActor.ID, "email": audit.SystemActor.Email, "role": audit.SystemActor.Role}
			m["resource"] = map[string]any{"type": audit.ResourceTenantPlan, "id": m["tenantId"]}
		}, []string{"actor.id", "actor.role", "resource.type"}},
		{"a forged retention record", func(m map[string]any) { sub(m, "resource")["type"] = audit.ResourceLogRetention }, []string{"resource.type"}},
		{"a forged delivery", func(m map[string]any) { sub(m, "resource")["type"] = audit.ResourcePeriodicExport }, []string{"resource.type"}},
		{"a forged restore request", func(m map[string]any) { sub(m, "resource")["type"] = audit.ResourceRestoreRequest }, []string{"resource.type"}},
		{"a forged stream change", func(m map[string]any) { sub(m, "resource")["type"] = audit.ResourceAuditStream }, []string{"resource.type"}},
		{"ipv6 ip", func(m map[string]any) { sub(m, "actor")["ip"] = "2001:db8::1" }, nil},
		{"user agent too long", func(m map[string]any) { sub(m, "actor")["userAgent"] = strings.Repeat("a", audit.MaxUserAgentBytes+1) }, []string{"actor.userAgent"}},
		{"unknown action", func(m map[string]any) { m["action"] = "publish" }, []string{"action"}},
		{"missing action", func(m map[string]any) { delete(m, "action") }, []string{"action"}},
		{"action wrong case", func(m map[string]any) { m["action"] = "DELETE" }, []string{"action"}},
		{"bad timestamp format", func(m map[string]any) { m["timestamp"] = "2026-11-21 09:30:12" }, []string{"timestamp"}},
		{"timestamp with ten fraction digits", func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12.1234567890Z" }, []string{"timestamp"}},
		{"timestamp with a comma separator", func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12,345Z" }, []string{"timestamp"}},
		{"timestamp with an empty fraction", func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12.Z" }, []string{"timestamp"}},
		{"timestamp lowercase t", func(m map[string]any) { m["timestamp"] = "2026-11-21t09:30:12.345Z" }, []string{"timestamp"}},
		{"timestamp lowercase z", func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12.345z" }, []string{"timestamp"}},
		{"timestamp offset without colon", func(m map[string]any) { m["timestamp"] = "2026-11-21T11:30:12.345+0200" }, []string{"timestamp"}},
		{"timestamp with nine fraction digits", func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12.123456789Z" }, nil},
		{"timestamp with an offset", func(m map[string]any) { m["timestamp"] = "2026-11-21T11:30:12.5+02:00" }, nil},
		{"timestamp without fraction", func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12Z" }, nil},
		{"NUL in userAgent", func(m map[string]any) { m["actor"].(map[string]any)["userAgent"] = "curl\x00/8" }, []string{"actor.userAgent"}},
		{"escape in userAgent", func(m map[string]any) { m["actor"].(map[string]any)["userAgent"] = "curl\x1b[31m" }, []string{"actor.userAgent"}},
		{"newline in reason", func(m map[string]any) { m["crossTenant"] = true; m["reason"] = "ticket\nforged line" }, []string{"reason"}},
		{"DEL in requestId", func(m map[string]any) { m["requestId"] = "req\x7f" }, []string{"requestId"}},
		{"restoredFrom not a UUID", func(m map[string]any) { m["restoredFrom"] = "rst_1" }, []string{"restoredFrom"}},
		{"restoredFrom on a create", func(m map[string]any) {
			m["action"], m["restoredFrom"] = "create", "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4"
		}, []string{"restoredFrom"}},
		{"restoredFrom a number", func(m map[string]any) { m["restoredFrom"] = 7 }, []string{"restoredFrom"}},
		{"NUL in a diff field name", func(m map[string]any) { m["diff"] = map[string]any{"a\x00b": map[string]any{"from": 1, "to": 2}} }, []string{"diff"}},
		{"NUL in a diff value", func(m map[string]any) {
			m["diff"] = map[string]any{"name": map[string]any{"from": "a\x00b", "to": "c"}}
		}, []string{"diff.name"}},
		{"NUL in before", func(m map[string]any) { m["before"] = map[string]any{"deep": map[string]any{"x": "\x00"}} }, []string{"before"}},
		{"bell in after", func(m map[string]any) { m["after"] = map[string]any{"x": []any{"\x07"}} }, []string{"after"}},
		{"tab and newline in after are kept", func(m map[string]any) { m["after"] = map[string]any{"prompt": "line 1\n\tline 2\r\n"} }, nil},
		{"an escaped backslash before u0000 is text", func(m map[string]any) { m["after"] = map[string]any{"path": "C:\\u0000"} }, nil},
		{"NUL in e-mail", func(m map[string]any) { m["actor"].(map[string]any)["email"] = "a\x00@x.example" }, []string{"actor.email"}},
		{"timestamp as number", func(m map[string]any) { m["timestamp"] = 1763717412345 }, []string{"timestamp"}},
		{"missing timestamp", func(m map[string]any) { delete(m, "timestamp") }, []string{"timestamp"}},
		{"timestamp far in the future", func(m map[string]any) { m["timestamp"] = "2026-11-23T12:00:00.000Z" }, []string{"timestamp"}},
		{"timestamp before 2000", func(m map[string]any) { m["timestamp"] = "1999-12-31T23:59:59.999Z" }, []string{"timestamp"}},
		{"resource.type not snake_case", func(m map[string]any) { sub(m, "resource")["type"] = "RecordingPolicy" }, []string{"resource.type"}},
		{"resource.type too long", func(m map[string]any) { sub(m, "resource")["type"] = strings.Repeat("q", 65) }, []string{"resource.type"}},
		{"resource.type open set", func(m map[string]any) { sub(m, "resource")["type"] = "wallboard_layout_v2" }, nil},
		{"actor.role with a dash", func(m map[string]any) { sub(m, "actor")["role"] = "team-lead" }, []string{"actor.role"}},
		{"actor.role open set", func(m map[string]any) { sub(m, "actor")["role"] = "supervisor" }, nil},
		{"diff not a map", func(m map[string]any) { m["diff"] = []any{"a", "b"} }, []string{"diff"}},
		{"diff entry not an object", func(m map[string]any) { sub(m, "diff")["enabled"] = true }, []string{"diff.enabled"}},
		{"diff entry without to", func(m map[string]any) { sub(m, "diff")["enabled"] = map[string]any{"from": false} }, []string{"diff.enabled"}},
		{"diff entry with extra key", func(m map[string]any) {
			sub(m, "diff")["enabled"] = map[string]any{"from": false, "to": true, "by": "x"}
		}, []string{"diff.enabled.by"}},
		{"diff null values allowed", func(m map[string]any) { sub(m, "diff")["name"] = map[string]any{"from": nil, "to": "Sales"} }, nil},
		{"crossTenant wrong type", func(m map[string]any) { m["crossTenant"] = "yes" }, []string{"crossTenant"}},
		{"crossTenant without reason", func(m map[string]any) { m["crossTenant"] = true }, []string{"reason"}},
		{"superadmin without reason", func(m map[string]any) { sub(m, "actor")["role"] = "superadmin" }, []string{"reason"}},
		{"unknown category", func(m map[string]any) { m["category"] = "billing" }, []string{"category"}},
		{"unknown outcome", func(m map[string]any) { m["outcome"] = "partial" }, []string{"outcome"}},
		{"before not an object", func(m map[string]any) { m["before"] = "enabled" }, []string{"before"}},
		{"unknown top-level field", func(m map[string]any) { m["severity"] = "high" }, []string{"severity"}},
		{"unknown actor field", func(m map[string]any) { sub(m, "actor")["name"] = "Bob" }, []string{"actor.name"}},
		{"every problem at once", func(m map[string]any) {
			delete(m, "tenantId")
			m["action"] = "publish"
			m["timestamp"] = "yesterday"
			sub(m, "resource")["type"] = "Queue"
			sub(m, "actor")["role"] = "Admin"
			sub(m, "actor")["id"] = "x"
			m["diff"] = "changed"
		}, []string{"action", "actor.id", "actor.role", "diff", "resource.type", "tenantId", "timestamp"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := validJSON(t)
			tc.mutate(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = audit.DecodeEvent(b, now)
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if audit.ErrorCode(err) != audit.EINVALID {
				t.Fatalf("want EINVALID, got %v", err)
			}
			if got := errtest.Fields(err); !reflect.DeepEqual(got, tc.fields) {
				t.Fatalf("offending fields %v, want %v (%v)", got, tc.fields, err)
			}
			for _, f := range audit.ErrorFields(err) {
				if f.Message == "" {
					t.Errorf("field %s has no message", f.Field)
				}
			}
		})
	}
}

func TestDecodeRejectsNonObjectsAndOversize(t *testing.T) {
	for _, in := range []string{``, `not json`, `[]`, `"event"`, `{"tenantId":`, `null`} {
		_, err := audit.DecodeEvent([]byte(in), now)
		if audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("DecodeEvent(%q) = %v; want EINVALID", in, err)
		}
	}
	m := validJSON(t)
	m["after"] = map[string]any{"blob": strings.Repeat("x", audit.MaxEventBytes)}
	b, _ := json.Marshal(m)
	if _, err := audit.DecodeEvent(b, now); audit.ErrorCode(err) != audit.ETOOLARGE {
		t.Fatalf("oversized event: %v; want ETOOLARGE", err)
	}
	// Two concatenated objects are not one event.
	one, _ := json.Marshal(validJSON(t))
	if _, err := audit.DecodeEvent(append(append(one, ' '), one...), now); err == nil {
		t.Fatal("two objects accepted as one event")
	}
}

func FuzzDecodeEvent(f *testing.F) {
	valid, _ := json.Marshal(specEvent())
	f.Add(valid)
	f.Add([]byte(`{"tenantId":42,"diff":[]}`))
	f.Add([]byte(`{"actor":{"ip":"::1"},"timestamp":"2026-11-21T09:30:12Z"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := audit.DecodeEvent(data, now)
		if err != nil {
			code := audit.ErrorCode(err)
			if code != audit.EINVALID && code != audit.ETOOLARGE {
				t.Fatalf("unexpected error code %q: %v", code, err)
			}
			if len(audit.ErrorFields(err)) == 0 {
				t.Fatalf("a rejection must name at least one field: %v", err)
			}
			return
		}
		// Nothing but valid JSON is ever accepted (the fast decoder alone
		// lets malformed raw values such as "after":{""} through).
		if !json.Valid(data) {
			t.Fatalf("invalid JSON accepted: %q", data)
		}
		// An accepted event re-encodes and decodes to the same bytes.
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("accepted event does not marshal: %v", err)
		}
		e2, err := audit.DecodeEvent(b, now)
		if err != nil {
			t.Fatalf("re-encoded event rejected: %v\n%s", err, b)
		}
		b2, _ := json.Marshal(e2)
		if string(b) != string(b2) {
			t.Fatalf("encoding not stable:\n%s\n%s", b, b2)
		}
	})
}
