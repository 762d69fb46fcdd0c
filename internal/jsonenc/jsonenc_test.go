package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// referenceKeys collects every key of every object in raw, as
// encoding/json's token stream reads them: a key whose object a later
// repeated key replaces counts too (the value decoded keeps only the
// last, but HasKey must see a secret key wherever it is written).
func referenceKeys(t *testing.T, raw []byte) map[string]bool {
	t.Helper()
	type frame struct{ object, wantKey bool }
	keys := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []frame
	valueDone := func() { // in an object, a key comes after a value
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			if s, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].wantKey {
				keys[s] = true
				stack[len(stack)-1].wantKey = false
				continue
			}
			valueDone()
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
// byte), and HasKey sees exactly the keys written in it (those of an
// object a repeated key later replaces too).
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
	keys := referenceKeys(t, []byte(raw))
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
