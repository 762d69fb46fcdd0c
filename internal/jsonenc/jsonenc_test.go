package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// referenceKeys collects every key of every object of a decoded value.
func referenceKeys(v any, keys map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			keys[k] = true
			referenceKeys(x, keys)
		}
	case []any:
		for _, x := range t {
			referenceKeys(x, keys)
		}
	}
}

func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// checkMarshaled: AppendMarshaled writes what json.Marshal writes of the
// decoded value (masking's fast path is rewriteRaw's output, byte for
// byte), and HasKey sees exactly the keys decoding sees.
func checkMarshaled(t *testing.T, raw string) {
	t.Helper()
	v, err := decodeValue([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(v)
	if got := AppendMarshaled(nil, []byte(raw)); !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got %s\nwant %s", raw, got, want)
	}
	keys := map[string]bool{}
	referenceKeys(v, keys)
	seen := map[string]bool{}
	HasKey([]byte(raw), func(k string) bool { seen[k] = true; return false })
	for k := range keys {
		if !seen[k] {
			t.Fatalf("%q: HasKey missed the key %q", raw, k)
		}
	}
	for k := range seen {
		if !keys[k] {
			t.Fatalf("%q: HasKey saw %q, not a key", raw, k)
		}
	}
}

var marshaledCorners = []string{
	`null`, `1.50`, `"<a & b>"`, `{"b":1,"a":{"d":[1,2,{"c":"\u003c"}],"c":null}}`, ` [ {"x" : "y:" , "k\"q" : "\"v\":"} ] `,
	`{"a":1,"a":2}`, `{"password":"x","nested":{"apiKey":[1]}}`, `"\u2028\ud800\uDFFF\n\b"`, "\"\xff\"", `{"":{"":{"":""}}}`,
}

func TestMarshaledMatchesTheEncoder(t *testing.T) {
	for _, raw := range marshaledCorners {
		checkMarshaled(t, raw)
	}
}

func FuzzMarshaled(f *testing.F) {
	for _, raw := range marshaledCorners {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		checkMarshaled(t, raw)
	})
}

// TestMembers: the members of an object, keys as written; not an object,
// none.
func TestMembers(t *testing.T) {
	var got []string
	ok := Members([]byte(` { "a" : 1 , "b\"c":{"x":[1,{}]} ,"d":"}" } `), func(k []byte, esc bool, v []byte) bool {
		got = append(got, string(k)+"="+string(v)+map[bool]string{true: " (escaped)"}[esc])
		return true
	})
	want := []string{`a=1`, `b\"c={"x":[1,{}]} (escaped)`, `d="}"`}
	if !ok || len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("%v %q", ok, got)
	}
	for _, raw := range []string{`[1]`, `"x"`, `null`} {
		if Members([]byte(raw), func([]byte, bool, []byte) bool { return true }) {
			t.Fatalf("%s is no object", raw)
		}
	}
}
