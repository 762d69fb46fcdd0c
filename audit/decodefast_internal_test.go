package audit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	fastjson "github.com/goccy/go-json"
)

// strictDecode is the fast path as it was: goccy's stream decoder with
// unknown fields refused (the slow path, decodeFields, is shared).
func strictDecode(data []byte) (Event, bool) {
	var e Event
	dec := fastjson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || dec.More() {
		return Event{}, false
	}
	return e, true
}

// checkFastPath: the fast path (knownKeys, then Unmarshal) takes an input
// only when the strict decoder takes it too, with the same event; and
// whatever path an input takes, DecodeEvent's answer is the one the
// strict fast path would have led to.
func checkFastPath(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	var fast Event
	fastOK := utf8.Valid(data) && knownKeys(data) && fastjson.Unmarshal(data, &fast) == nil
	strict, strictOK := strictDecode(data)
	if fastOK && (!strictOK || !reflect.DeepEqual(fast, strict)) {
		t.Fatalf("%s: the fast path took %+v, the strict decoder %v %+v", data, fast, strictOK, strict)
	}
	if strictOK && !fastOK {
		// Another path now: its answer must be the one the strict path gave.
		now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
		got, err := DecodeEvent(data, now)
		strict.Normalize()
		if want := strict.validate(now, nil).err("invalid event"); (err == nil) != (want == nil) || err == nil && !reflect.DeepEqual(got, strict) {
			t.Fatalf("%s: now %+v %v, was %+v %v", data, got, err, strict, want)
		}
	}
}

var fastPathCorners = []string{
	`{"id":"evt_audit_1","ID":"evt_audit_2"}`, `{"Id":"x","TENANTID":"y","Actor":{"EMAIL":"a@b.c"}}`,
	`{"actor":{"email":"a","nope":1}}`, `{"diff":{"a":{"from":1,"to":2,"x":3}}}`, `{"diff":{"a":"notachange"}}`,
	`{"\u0069d":"x"}`, `{"croſſTenant":true}`, `{"actor":null,"resource":null,"diff":null}`, `{"before":{"any":{"key":1}}}`,
	`{"timestamp":"2026-11-21T09:30:12.345Z","tenantId":"7c9e6679-7425-40de-944b-e07fc1f90ae7","actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"a@x.example","role":"admin","ip":"::1","userAgent":"ua"},"action":"update","resource":{"type":"queue","id":"q"},"diff":{"name":{"from":"a","to":"b"}}}`,
	`[]`, `"x"`, `{}`, `{"crossTenant":"yes"}`,
}

func TestTheFastPathDecodesAsTheStrictDecoder(t *testing.T) {
	for _, c := range fastPathCorners {
		checkFastPath(t, []byte(c))
	}
}

func FuzzFastPath(f *testing.F) {
	for _, c := range fastPathCorners {
		f.Add([]byte(c))
	}
	f.Fuzz(checkFastPath)
}
