package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCorners = []string{
	``, ` `, `null`, `nul`, `nullx`, `true`, `tru`, `false `, ` falsey`, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `-1.5e10`, `2x`,
	`""`, `"`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\x"`, `"\u00e9"`, `"\u00g9"`, `"\u12"`, "\"\x1f\"", "\"\x7f\xff\"", "\"\t\"",
	`[]`, `[`, `[1,]`, `[,1]`, `[1 2]`, ` [ 1 , "a" , [ ] , { } ] `, `{}`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{1:2}`,
	`{"a" : {"b" : [true, false, null]}}`, `{"a":1}}`, `[1]]`, `"a" "b"`, "\ufeff{}", `{"a":1}` + "\n",
	`{"a":true}`, `{"a":truex}`, `{"a":tru}`, `{"a":fals}`, `{"a" : false , "b":{ "c" : [1,{"d":null}] } }`, `{"a":1,,"b":2}`,
	`{"a":1}x`, `{"a":{}`, `{"a"  :  "x\u00e9\n"}`, `{"\u0061":1}`, "{\"a\x01\":1}", `{"a":"b"` + "\t}", `{"a":-}`, `{"a":[1,]}`,
	`{ }`, `{"a":1 , }`, `{"a":{"b":{"c":{}}}}`, `{"a"` + ":" + `"\ud800"}`,
}

func TestValidIsEncodingJSONs(t *testing.T) {
	for _, raw := range validCorners {
		if got, want := Valid([]byte(raw)), json.Valid([]byte(raw)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", raw, got, want)
		}
	}
}

// TestValidKeepsTheNestingLimit: 10,000 nested arrays are valid, 10,001
// are not, as for encoding/json.
func TestValidKeepsTheNestingLimit(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		raw := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if got, want := Valid(raw), json.Valid(raw); got != want {
			t.Errorf("%d nested arrays: Valid %v, encoding/json %v", n, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, raw := range append(validCorners, marshaledCorners...) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := Valid([]byte(raw)), json.Valid([]byte(raw)); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", raw, got, want)
		}
	})
}

// TestValueEndTellsACutValue: every proper prefix of an object, array or
// string ends inside it (the index returned is the prefix's length), and
// the whole value ends where it does.
func TestValueEndTellsACutValue(t *testing.T) {
	docs := []string{
		`{"hits":{"total":{"value":3,"relation":"eq"},"hits":[{"_source":{"a":[1,-2.5e+3,true,false,null,"x\"\\\u00e9"]}}]}}`,
		` [ {"k" : "v" } , 12 , "\ud83d\ude00" ] `, `"abc\n"`, `{"a":{"b":{"c":[]}}}`,
	}
	for _, d := range docs {
		start := SkipSpace([]byte(d), 0)
		want := len(strings.TrimRight(d, " "))
		if end, ok := ValueEnd([]byte(d), 0); !ok || end != want {
			t.Fatalf("%q: ends at %d (%v), want %d", d, end, ok, want)
		}
		for n := start + 1; n < want; n++ {
			if end, ok := ValueEnd([]byte(d[:n]), 0); ok || end != n {
				t.Fatalf("%q cut at %d: ValueEnd = %d, %v; want %d, false", d, n, end, ok, n)
			}
		}
	}
}
