package restorejob_test

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/mask"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/audit"
)

func restoreEvents(t *testing.T) (src, latest *audit.Event) {
	t.Helper()
	p := &mask.Policy{Key: []byte("k")}
	mk := func(id, before, after string) *audit.Event {
		e := audit.Event{ID: id, TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Action: audit.ActionUpdate,
			Resource: audit.Resource{Type: "ivr", ID: "ivr-1"}, Before: json.RawMessage(before), After: json.RawMessage(after)}
		if err := p.Apply(&e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	v1 := `{"greeting":"hello","rules":[{"id":"r1","mode":"all"},{"id":"r2","mode":"none"}],"crm":{"apiKey":"k1","url":"https://a"},"old":true}`
	v2 := `{"greeting":"hi","rules":[{"id":"r1","mode":"all"},{"id":"r2","mode":"some"}],"crm":{"apiKey":"k2","url":"https://b"}}`
	v3 := `{"greeting":"hey","rules":[{"id":"r2","mode":"some"},{"id":"r1","mode":"all"}],"crm":{"apiKey":"k2","url":"https://c"},"new":1}`
	return mk("e2", v1, v2), mk("e3", v2, v3)
}

func TestRestoreRoles(t *testing.T) {
	for _, c := range []struct {
		p      audit.Principal
		reason string
		ok     bool
	}{
		{audit.Principal{Role: audit.RoleAdmin}, "", true},
		{audit.Principal{Role: audit.RoleSuperadmin}, "", false},
		{audit.Principal{Role: audit.RoleSuperadmin}, "ticket 42", true},
		{audit.Principal{Role: audit.RoleSuperadmin, Reason: "ticket 43"}, "", true},
		{audit.Principal{Role: "supervisor"}, "because", false},
		{audit.Principal{Role: audit.RoleIngest}, "", false},
	} {
		err := restorejob.CheckRestoreRole(c.p, c.reason)
		if (err == nil) != c.ok || (err != nil && audit.ErrorCode(err) != audit.EFORBIDDEN) {
			t.Errorf("%s with reason %q: %v, want ok=%v", c.p.Role, c.reason, err, c.ok)
		}
	}
}

func TestPlanRestoreWholeState(t *testing.T) {
	src, latest := restoreEvents(t)
	req, err := restorejob.PlanRestore(restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", By: audit.Principal{Role: audit.RoleAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	// The before state of e2, its masked apiKey left out and named.
	want := `{"crm":{"url":"https://a"},"greeting":"hello","old":true,"rules":[{"id":"r1","mode":"all"},{"id":"r2","mode":"none"}]}`
	if compact(req.State) != want || !slices.Equal(req.OmittedFields, []string{"crm.apiKey"}) {
		t.Fatalf("state %s omitted %v", req.State, req.OmittedFields)
	}
	if req.ExpectedEventID != "e3" || !strings.Contains(string(req.ExpectedState), `"greeting":"hey"`) || req.Version != restorejob.Before {
		t.Fatalf("expected %s %s", req.ExpectedEventID, req.ExpectedState)
	}
	whole, _ := json.Marshal(req)
	if strings.Contains(string(whole[strings.Index(string(whole), `"state"`):strings.Index(string(whole), `"expectedState"`)]), audit.MaskPrefix) {
		t.Fatalf("a masked value is in the state to restore: %s", whole)
	}
	after, err := restorejob.PlanRestore(restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", Version: "after", By: audit.Principal{Role: audit.RoleAdmin}})
	if err != nil || !strings.Contains(string(after.State), `"greeting":"hi"`) {
		t.Fatalf("version after: %s %v", after.State, err)
	}
}

func TestPlanRestoreChosenFields(t *testing.T) {
	src, latest := restoreEvents(t)
	req, err := restorejob.PlanRestore(restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", By: audit.Principal{Role: audit.RoleAdmin},
		Fields: []string{"rules[r2].mode", "old", "new"}})
	if err != nil {
		t.Fatal(err)
	}
	// The current state (e3's after) with r2's mode and "old" from e2's
	// before, "new" removed (e2's before has none), and the secret left
	// out: the current masked value is not a value to write back either.
	want := `{"crm":{"url":"https://c"},"greeting":"hey","old":true,"rules":[{"id":"r2","mode":"none"},{"id":"r1","mode":"all"}]}`
	if compact(req.State) != want || !slices.Equal(req.OmittedFields, []string{"crm.apiKey"}) {
		t.Fatalf("state %s\nwant  %s\nomitted %v", compact(req.State), want, req.OmittedFields)
	}
	// The expected state keeps the marker: the owner compares it.
	if !strings.Contains(string(req.ExpectedState), markerOf(t, latest, "crm.apiKey")) {
		t.Fatalf("expected state %s lost the marker", req.ExpectedState)
	}
	// A parent path restores every non-secret leaf under it and names the
	// secret it left alone.
	req, err = restorejob.PlanRestore(restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", By: audit.Principal{Role: audit.RoleAdmin}, Fields: []string{"crm"}})
	want = `{"crm":{"url":"https://a"},"greeting":"hey","new":1,"rules":[{"id":"r2","mode":"some"},{"id":"r1","mode":"all"}]}`
	if err != nil || compact(req.State) != want || !slices.Equal(req.OmittedFields, []string{"crm.apiKey"}) {
		t.Fatalf("parent path: %v\nstate %s\nwant  %s\nomitted %v", err, compact(req.State), want, req.OmittedFields)
	}
}

// TestARestoreMustChangeSomething: a field that is a secret, that neither
// state has, or that already has the source's value is refused by name,
// and so is a whole-state restore of the current state.
func TestARestoreMustChangeSomething(t *testing.T) {
	src, latest := restoreEvents(t)
	admin := audit.Principal{Role: audit.RoleAdmin}
	for _, c := range []struct {
		fields  []string
		version string
		want    []string
	}{
		{[]string{"crm.apiKey"}, "", []string{"fields: crm.apiKey is a secret"}},
		{[]string{"nope"}, "", []string{"fields: nope is not a field of this resource"}},
		{[]string{"nope.x"}, "", []string{"fields: nope.x is not a field of this resource"}},
		{[]string{"rules[r1].mode"}, "", []string{"fields: rules[r1].mode already has this value"}},
		{[]string{"greeting", "nope", "rules[r1].mode"}, "", []string{"fields: nope is not", "fields: rules[r1].mode already"}},
		{[]string{"greeting.x"}, "", []string{"fields: greeting.x is not a field of this resource"}},
		{nil, "after", nil},
	} {
		s, l := src, latest
		if c.version == "after" {
			s = latest // the latest version's own after: the current state
		}
		_, err := restorejob.PlanRestore(restorejob.Ask{Source: s, Latest: l, LatestSeen: "e3", Version: c.version, Fields: c.fields, By: admin})
		var got []string
		for _, f := range audit.ErrorFields(err) {
			got = append(got, f.Field+": "+f.Message)
		}
		if audit.ErrorCode(err) != audit.EINVALID || len(got) != max(len(c.want), 1) {
			t.Errorf("%v %s: %v", c.fields, c.version, got)
			continue
		}
		for i, w := range c.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%v: %q, want %q…", c.fields, got[i], w)
			}
		}
		if c.version == "after" && !strings.HasPrefix(got[0], "version: the current state already has every value") {
			t.Errorf("whole state: %v", got)
		}
	}
	// Only a secret differs under a parent path: nothing to restore.
	p := &mask.Policy{Key: []byte("0123456789abcdef0123456789abcdef")}
	mk := func(id, before, after string) *audit.Event {
		e := audit.Event{ID: id, TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Action: audit.ActionUpdate, Resource: audit.Resource{Type: "ivr", ID: "ivr-1"},
			Before: json.RawMessage(before), After: json.RawMessage(after)}
		if err := p.Apply(&e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	a := mk("e1", `{"cfg":{"bucket":"b","clientSecret":"s1"}}`, `{"cfg":{"bucket":"b","clientSecret":"s2"}}`)
	_, err := restorejob.PlanRestore(restorejob.Ask{Source: a, Latest: a, LatestSeen: "e1", Fields: []string{"cfg"}, By: admin})
	if fs := audit.ErrorFields(err); len(fs) != 1 || !strings.Contains(fs[0].Message, "only its secrets differ") {
		t.Fatalf("only a secret differs: %v", err)
	}
}

func TestPlanRestoreRefusals(t *testing.T) {
	src, latest := restoreEvents(t)
	admin := audit.Principal{Role: audit.RoleAdmin}
	for _, c := range []struct {
		name  string
		ask   restorejob.Ask
		code  string
		field string
	}{
		{"stale", restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e2", By: admin}, audit.ECONFLICT, ""},
		{"no latestSeen", restorejob.Ask{Source: src, Latest: latest, By: admin}, audit.EINVALID, "latestSeen"},
		{"bad version", restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", Version: "middle", By: admin}, audit.EINVALID, "version"},
		{"no such state", restorejob.Ask{Source: &audit.Event{ID: "e9", Action: audit.ActionDelete, Before: src.Before}, Latest: latest, LatestSeen: "e3", Version: "after", By: admin}, audit.EINVALID, "version"},
		{"bad path", restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", Fields: []string{"rules[r2"}, By: admin}, audit.EINVALID, "fields"},
		{"wrong role", restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e3", By: audit.Principal{Role: "agent"}}, audit.EFORBIDDEN, ""},
	} {
		_, err := restorejob.PlanRestore(c.ask)
		if audit.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
			continue
		}
		if fs := audit.ErrorFields(err); c.field != "" && (len(fs) == 0 || fs[0].Field != c.field) {
			t.Errorf("%s: fields %v, want %s", c.name, fs, c.field)
		}
	}
	if _, err := restorejob.PlanRestore(restorejob.Ask{Source: src, Latest: latest, LatestSeen: "e2", Force: true, By: admin}); err != nil {
		t.Fatalf("force over a stale view: %v", err)
	}
}

// markerOf reads the masked value at a dotted path of e's after.
func markerOf(t *testing.T, e *audit.Event, path string) string {
	var v any = map[string]any{}
	_ = json.Unmarshal(e.After, &v)
	for _, k := range strings.Split(path, ".") {
		v = v.(map[string]any)[k]
	}
	s, _ := v.(string)
	if !strings.HasPrefix(s, audit.MaskPrefix) {
		t.Fatalf("%s is not masked: %v", path, v)
	}
	return s
}

// compact re-encodes a JSON value with sorted keys and no spaces.
func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
