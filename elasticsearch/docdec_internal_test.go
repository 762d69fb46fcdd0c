package elasticsearch

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/auditlog/auditlog/gen"
)

// checkDocFast holds decodeStoredDoc's fast path to the library: a
// document it takes, go-json-experiment/json with the strict options
// takes too, into the same doc.
func checkDocFast(t *testing.T, src []byte) bool {
	t.Helper()
	checkEventOnly(t, src)
	var fast, ref doc
	if !decodeDocFast(src, &fast) {
		return false
	}
	if err := jsonv2.Unmarshal(src, &ref, jsonv2.RejectUnknownMembers(true)); err != nil {
		t.Fatalf("the fast path took %q, which the library refuses: %v", src, err)
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Fatalf("%q:\nfast    %#v\nlibrary %#v", src, fast, ref)
	}
	return true
}

// checkEventOnly holds the export scan's decodeStoredEvent to
// decodeStoredDoc: the same documents are refused, and a taken one is the
// same event.
func checkEventOnly(t *testing.T, src []byte) {
	t.Helper()
	d, errDoc := decodeStoredDoc(src)
	e, errEvent := decodeStoredEvent(src)
	if (errDoc == nil) != (errEvent == nil) {
		t.Fatalf("%q: decodeStoredDoc says %v, decodeStoredEvent %v", src, errDoc, errEvent)
	}
	if errDoc == nil && !reflect.DeepEqual(d.event(), e) {
		t.Fatalf("%q:\ndoc's event %#v\nevent       %#v", src, d.event(), e)
	}
}

func sampleDocs(tb testing.TB) [][]byte {
	g := gen.New(gen.Config{Seed: 9, Tenants: 4, WithIDs: true}, 200)
	var out [][]byte
	for i := range 200 {
		e := g.Next()
		var tag []byte
		if i%2 == 0 {
			tag = []byte{1, 2, 3, byte(i), 0xff}
		}
		out = append(out, appendDoc(nil, &e, tag))
	}
	return out
}

var docCorners = []string{
	`{"@timestamp":"2026-11-21T09:30:12.345Z"}`, `{"timestamp":"2026-11-21T09:30:12.345Z"}`,
	`{"@timestamp":"2026-11-21T09:30:12.345Z","timestamp":"2026-11-21T09:30:12.345Z"}`,
	`{"values":null}`, `{"values":[]}`, `{"values":["a","b\u00e9"]}`, `{"values":["a",1]}`, `{"values":"a"}`,
	`{"words":["x"],"words":["y"]}`, `{"reasonText":"r"}`, `{"reasonText":null}`, `{"accept":"AQID"}`, `{"accept":"AQI"}`,
	`{"accept":null}`, `{"accept":"AQID\n"}`, `{"accept":"!!!!"}`, `{"other":1}`, `{"changedFields":["a"],"diff":{"a":{"from":1,"to":2}}}`,
	`{"":1}`, `{"values":[ "a" , "b" ]}`, `{"values":["a",]}`, `{"accept":"AQID","accept":"AQID"}`,
}

func TestStoredDocFastPathIsTheLibrary(t *testing.T) {
	for _, c := range docCorners {
		checkDocFast(t, []byte(c))
	}
	rng := rand.New(rand.NewPCG(11, 12))
	taken := 0
	for _, src := range sampleDocs(t) {
		if !checkDocFast(t, src) {
			t.Fatalf("a document appendDoc writes is not taken: %s", src)
		}
		for range 50 {
			m := bytes.Clone(src)
			m[rng.IntN(len(m))] = "\"\\{}[],:0-.tn @\xffa"[rng.IntN(17)]
			if checkDocFast(t, m) {
				taken++
			}
		}
	}
	if taken == 0 {
		t.Fatal("no changed document was taken: the comparison compared nothing")
	}
}

// FuzzDecodeStoredDoc holds the fast path to go-json-experiment/json.
func FuzzDecodeStoredDoc(f *testing.F) {
	for _, src := range sampleDocs(f)[:20] {
		f.Add(src)
	}
	for _, c := range docCorners {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkDocFast(t, src) })
}
