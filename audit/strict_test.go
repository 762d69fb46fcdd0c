package audit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
)

// specJSON is the spec event's JSON with old replaced by new once (the
// replacement must apply).
func specJSON(t *testing.T, old, new string) []byte {
	t.Helper()
	b, err := json.Marshal(specEvent())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in %s", old, s)
	}
	return []byte(strings.Replace(s, old, new, 1))
}

// What an audit log must refuse rather than guess at, at every depth, each
// a 400 (HTTP ingest) or a dead letter (Kafka) naming the field: the two
// routes share DecodeEvent.
func TestStrictDecodeRefusesWhatItCannotKeepExactly(t *testing.T) {
	cases := []struct {
		name, old, new, field, msg string
	}{
		{"duplicate top-level key", `"action":"update"`, `"action":"update","action":"delete"`, "action", "more than once"},
		{"duplicate actor key", `"role":"admin"`, `"role":"admin","role":"superadmin"`, "actor.role", "more than once"},
		{"duplicate changed field", `"diff":{`, `"diff":{"enabled":{"from":1,"to":2},`, "diff.enabled", "more than once"},
		{"duplicate key inside after", `"after":{`, `"after":{"x":1,"x":2,`, "after.x", "more than once"},
		{"case-folded top-level key", `"tenantId"`, `"TenantID"`, "TenantID", "not a known field"},
		{"case-folded actor key", `"email"`, `"Email"`, "actor.Email", "not a known field"},
		{"case-folded change key", `"from"`, `"From"`, "", "not a known field"},
		{"invalid UTF-8 in a string field", `"userAgent":"`, "\"userAgent\":\"\xff", "actor.userAgent", "UTF-8"},
		{"invalid UTF-8 in a key", `"requestId"`, "\"request\xffId\"", "", ""},
		{"invalid UTF-8 inside before", `"before":{`, "\"before\":{\"k\":\"\xfe\",", "before.k", "UTF-8"},
		{"unknown key", `"action"`, `"zzExtra":"voice","action"`, "zzExtra", "not a known field"},
		{"text after the event", `}`, `}`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := specJSON(t, c.old, c.new)
			if c.name == "text after the event" {
				data = append(data, " {}"...)
			}
			_, err := audit.DecodeEvent(data, now)
			if err == nil {
				t.Fatalf("accepted %q", data)
			}
			if audit.ErrorCode(err) != audit.EINVALID {
				t.Fatalf("code %q: %v", audit.ErrorCode(err), err)
			}
			fields := audit.ErrorFields(err)
			if c.field == "" && c.msg == "" {
				if len(fields) == 0 {
					t.Fatalf("no field named: %v", err)
				}
				return
			}
			for _, f := range fields {
				if (c.field == "" || f.Field == c.field) && strings.Contains(f.Message, c.msg) {
					return
				}
			}
			t.Fatalf("want %q %q among %+v", c.field, c.msg, fields)
		})
	}
}

// independentStrict decodes as the reference does: encoding/json with
// unknown fields refused, plus the three checks encoding/json lacks made
// independently (its token stream for duplicate and case-folded keys,
// utf8.Valid): an input it takes must be the event DecodeEvent decodes,
// and the reverse.
func independentStrict(data []byte) (audit.Event, bool) {
	var e audit.Event
	if !utf8.Valid(data) || !json.Valid(data) || !tokensUnique(data) || !exactNames(data) {
		return e, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return e, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return e, false
	}
	return e, true
}

// tokensUnique: no object in data names a key twice.
func tokensUnique(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object  bool
		keyNext bool
		keys    map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return errors.Is(err, io.EOF)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.object {
				top.keyNext = true
			}
			stack = append(stack, &frame{object: true, keyNext: true, keys: map[string]bool{}})
			continue
		case json.Delim('['):
			if top != nil && top.object {
				top.keyNext = true
			}
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.object {
			if top.keyNext {
				k := tok.(string)
				if top.keys[k] {
					return false
				}
				top.keys[k] = true
			}
			top.keyNext = !top.keyNext
		}
	}
}

// exactNames: every key of the event, its actor, resource and changes is
// spelled as the field's JSON name (encoding/json matches up to case).
func exactNames(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	names := func(v any) map[string]bool {
		m := map[string]bool{}
		for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
			m[strings.Split(f.Tag.Get("json"), ",")[0]] = true
		}
		return m
	}
	only := func(raw json.RawMessage, allowed map[string]bool) bool {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return true // not an object: the decoder judges it
		}
		for k := range m {
			if !allowed[k] {
				return false
			}
		}
		return true
	}
	if !only(data, names(audit.Event{})) || !only(top["actor"], names(audit.Actor{})) || !only(top["resource"], names(audit.Resource{})) {
		return false
	}
	var diff map[string]json.RawMessage
	_ = json.Unmarshal(top["diff"], &diff)
	for _, c := range diff {
		if !only(c, names(audit.Change{})) {
			return false
		}
	}
	return true
}

// checkStrict: DecodeEvent takes an input when, and only when, the
// independent strict decoding takes it, and decodes the same event before
// its defaults and rules (compared through both decodings' rules).
func checkStrict(t *testing.T, data []byte) {
	got, err := audit.DecodeEvent(data, now)
	ref, ok := independentStrict(data)
	var refErr error
	if ok {
		ref.Normalize()
		refErr = ref.Validate(now)
	}
	switch {
	case !ok && err == nil:
		t.Fatalf("DecodeEvent took %q, which the reference refuses", data)
	case ok && (err == nil) != (refErr == nil):
		t.Fatalf("%q: DecodeEvent %v, reference %v", data, err, refErr)
	case ok && err == nil && !reflect.DeepEqual(got, ref):
		t.Fatalf("%q: DecodeEvent %+v, reference %+v", data, got, ref)
	}
	if err != nil && len(audit.ErrorFields(err)) == 0 {
		t.Fatalf("a refusal must name a field: %v", err)
	}
}

var strictCorners = []string{
	`{"id":"evt_audit_1","ID":"evt_audit_2"}`, `{"Id":"x","TENANTID":"y","Actor":{"EMAIL":"a@b.c"}}`,
	`{"actor":{"email":"a","nope":1}}`, `{"diff":{"a":{"from":1,"to":2,"x":3}}}`, `{"diff":{"a":"notachange"}}`,
	`{"\u0069d":"x"}`, `{"croſſTenant":true}`, `{"actor":null,"resource":null,"diff":null}`, `{"before":{"any":{"key":1}}}`,
	`{"before":{"k":1,"k":2}}`, "{\"reason\":\"\xc3\"}", `{"after":{""}}`, `[]`, `"x"`, `{}`, `{"crossTenant":"yes"}`,
}

func TestStrictDecodeAgreesWithTheIndependentReference(t *testing.T) {
	for _, c := range strictCorners {
		checkStrict(t, []byte(c))
	}
	full, _ := json.Marshal(specEvent())
	checkStrict(t, full)
}

// FuzzStrictDecode holds DecodeEvent to the independent reference.
func FuzzStrictDecode(f *testing.F) {
	full, _ := json.Marshal(specEvent())
	f.Add(full)
	for _, c := range strictCorners {
		f.Add([]byte(c))
	}
	f.Fuzz(checkStrict)
}
