package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
)

// walkValid checks raw with the walk alone: objects with ObjectAt, at
// every depth, booleans with BoolAt, any other value with ValueAt.
func walkValid(raw []byte) bool {
	end, ok := walkValue(raw, skipSpace(raw, 0), 0)
	return ok && skipSpace(raw, end) == len(raw)
}

func walkValue(raw []byte, i, depth int) (int, bool) {
	if i < len(raw) && raw[i] == '{' {
		if depth >= maxDepth {
			return i, false
		}
		return ObjectAt(raw, i, func(_ []byte, _ bool, v int) (int, bool) { return walkValue(raw, v, depth+1) })
	}
	if i < len(raw) && (raw[i] == 't' || raw[i] == 'f') {
		_, end, ok := BoolAt(raw, i)
		return end, ok
	}
	return ValueAt(raw, i, depth)
}

var walkCorners = append([]string{
	`{"a":true}`, `{"a":truex}`, `{"a":tru}`, `{"a":fals}`, `{"a" : false , "b":{ "c" : [1,{"d":null}] } }`, `{"a":1,,"b":2}`,
	`{"a":1}x`, `{"a":{}`, `{"a"  :  "x\u00e9\n"}`, `{"\u0061":1}`, "{\"a\x01\":1}", `{"a":"b"` + "\t}", `{"a":-}`, `{"a":[1,]}`,
	`{ }`, `{"a":1 , }`, `{"a":{"b":{"c":{}}}}`, `{"a"` + ":" + `"\ud800"}`,
}, validCorners...)

func TestTheWalkChecksAsValid(t *testing.T) {
	for _, raw := range walkCorners {
		if got, want := walkValid([]byte(raw)), json.Valid([]byte(raw)); got != want {
			t.Errorf("walk(%q) = %v, encoding/json says %v", raw, got, want)
		}
	}
	for _, n := range []int{maxDepth, maxDepth + 1} {
		raw := []byte(strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat("}", n-1))
		if got, want := walkValid(raw), json.Valid(raw); got != want {
			t.Errorf("%d nested objects: walk %v, encoding/json %v", n, got, want)
		}
	}
}

// TestObjectAtHandsOutKeys: each key without its quotes, whether it is
// escaped, and where its value starts.
func TestObjectAtHandsOutKeys(t *testing.T) {
	raw := []byte(` { "a" : 1 , "b\"c":"x" }`)
	var got []string
	end, ok := ObjectAt(raw, 1, func(k []byte, escaped bool, v int) (int, bool) {
		got = append(got, string(k)+"|"+map[bool]string{true: "escaped", false: "plain"}[escaped]+"|"+string(raw[v]))
		return ValueAt(raw, v, 1)
	})
	if want := []string{`a|plain|1`, `b\"c|escaped|"`}; !ok || end != len(raw) || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %q end %d ok %v", got, end, ok)
	}
	if _, ok := ObjectAt(raw, 1, func(k []byte, _ bool, v int) (int, bool) { return v, false }); ok {
		t.Fatal("a stop from fn must stop the walk")
	}
}

func FuzzObjectAt(f *testing.F) {
	for _, raw := range append(walkCorners, marshaledCorners...) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := walkValid([]byte(raw)), json.Valid([]byte(raw)); got != want {
			t.Fatalf("walk(%q) = %v, encoding/json says %v", raw, got, want)
		}
	})
}
