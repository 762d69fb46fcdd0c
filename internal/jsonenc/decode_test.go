package jsonenc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func checkDecodeNumbers(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := DecodeNumbers(raw)
	if ok != json.Valid(raw) {
		t.Fatalf("%q: DecodeNumbers ok %v, json.Valid %v", raw, ok, !ok)
	}
	if !ok {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("%q: encoding/json: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", raw, got, want)
	}
}

var decodeCorners = []string{
	`{"a":1,"b":[true,false,null,"x",-1.5e+10,{}],"c":{"d":[]}}`, ` [ 1 , 2 ] `, `"\u00e9\ud800x"`, `"\xff"`, `0`, `-0.0E-1`,
	`{"a":1,"a":2}`, `{"\u0061":"b","a\"":"c"}`, `[[[[]]]]`, `null`, `{`, `{"a":}`, `[1,]`, ``, `1 2`, `{"a":1}x`,
}

func TestDecodeNumbersDecodesAsEncodingJSON(t *testing.T) {
	for _, c := range decodeCorners {
		checkDecodeNumbers(t, []byte(c))
	}
}

func FuzzDecodeNumbers(f *testing.F) {
	for _, c := range decodeCorners {
		f.Add([]byte(c))
	}
	f.Fuzz(checkDecodeNumbers)
}
