package audit

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// checkOnePass: whatever the one-pass decoder accepts is valid JSON
// (encoding/json.Valid), and goccy's strict decoder (unknown fields
// refused, the fast path as it was) decodes it to the same event.
func checkOnePass(t *testing.T, data []byte) bool {
	t.Helper()
	if !utf8.Valid(data) {
		return false
	}
	var got Event
	if !decodeOnePass(data, &got) {
		return false
	}
	if !json.Valid(data) {
		t.Fatalf("%q: taken by the one-pass decoder, but it is no JSON", data)
	}
	want, ok := strictDecode(data)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: one pass %+v, the strict decoder %v %+v", data, got, ok, want)
	}
	return true
}

var onePassCorners = append([]string{
	`{"id":"evt_audit_1","tenantId":"t","actor":{"id":"a","email":"a@b.c","role":"admin","ip":"::1","userAgent":"ua"},"action":"update","resource":{"type":"queue","id":"q"},"diff":{"name":{"from":null,"to":"b"}},"crossTenant":false,"reason":"r","before":{"a" : [1, 2]},"after":null,"requestId":"req","restoredFrom":"x","category":"security","outcome":"failure"}`,
	` { "ID" : "x" , "Diff" : { } , "CROSSTENANT" : true } `, `{"diff":{"a":{}}}`, `{"diff":{"a":{"from":1},"b":{"to":{"x":"\u00e9"}}}}`,
	`{"before":"","after":0}`, `{"id":"a\"b","reason":"\u00e9\ud800\n"}`, `{"timestamp":"2026-11-21T09:30:12.345Z"}`, `{"resource":{"type":"t"},"actor":{}}`,
}, fastPathCorners...)

// declined lists inputs the one-pass decoder must leave to the others.
var declined = []string{
	`{"i\u0064":"x"}`, `{"id":"x","Id":"y"}`, `{"id":null}`, `{"crossTenant":null}`, `{"crossTenant":1}`,
	`{"actor":null}`, `{"actor":{"id":"a","ID":"b"}}`, `{"diff":{"a":{"from":1},"a":{"to":2}}}`, `{"diff":{"a":1}}`,
	`{"diff":{"a":{"from":1,"to":2,"x":3}}}`, `{"nope":1}`, `{"timestamp":"yesterday"}`, `{"timestamp":null}`, `[]`, `"x"`,
	`{"diff":{"\u0061":{}}}`, `{"actor":{"id":1}}`, `{"croſſTenant":true}`,
	// Broken JSON: the walk checks the grammar itself.
	`{"id":"x",}`, `{"id":"x"}}`, `{"id":"x" "tenantId":"y"}`, `{"crossTenant":truex}`, `{"before":[1,]}`, `{"after":01}`,
	"{\"reason\":\"a\x01\"}", `{"reason":"\x"}`, `{"diff":{"a":{"from":-}}}`, `{"id":"x"`, `{"actor":{"id":"a",}}`, `{"id":"x"}x`,
}

func TestTheOnePassDecoderDecodesAsTheStrictDecoder(t *testing.T) {
	accepted := 0
	for _, c := range onePassCorners {
		if checkOnePass(t, []byte(c)) {
			accepted++
		}
	}
	if accepted < 8 {
		t.Fatalf("the one-pass decoder took %d of the corner table; the common shapes must be its", accepted)
	}
	for _, c := range declined {
		var e Event
		if decodeOnePass([]byte(c), &e) {
			t.Errorf("%s: taken, must be declined", c)
		}
	}
}

// TestStringsAndRawValuesOwnTheirBytes: the decoded event does not alias
// the caller's buffer, which may be reused.
func TestStringsAndRawValuesOwnTheirBytes(t *testing.T) {
	data := []byte(`{"id":"evt","reason":"why","before":{"a":1},"diff":{"f":{"from":"x","to":"y"}}}`)
	var e Event
	if !decodeOnePass(data, &e) {
		t.Fatal("declined")
	}
	for i := range data {
		data[i] = ' '
	}
	if e.ID != "evt" || e.Reason != "why" || string(e.Before) != `{"a":1}` || string(e.Diff["f"].From) != `"x"` || string(e.Diff["f"].To) != `"y"` {
		t.Fatalf("the event changed with the buffer: %+v", e)
	}
	e.Before = append(e.Before, '!')
	if string(e.Diff["f"].From) != `"x"` {
		t.Fatal("appending to one raw value wrote into another")
	}
}

func FuzzOnePass(f *testing.F) {
	for _, c := range append(onePassCorners, declined...) {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkOnePass(t, data) })
}
