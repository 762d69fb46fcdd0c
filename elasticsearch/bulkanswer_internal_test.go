package elasticsearch

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestTheBulkAnswerReadsAsEncodingJSON holds the scanner to what
// encoding/json decodes from the same answers.
func TestTheBulkAnswerReadsAsEncodingJSON(t *testing.T) {
	answers := []string{
		`{"errors":false,"items":[{"create":{"_index":".ds-a-1","status":201}},{"create":{"_index":".ds-a-1","status":201}},{"create":{"_index":".ds-b-1","status":201}}]}`,
		`{"errors":true,"items":[{"create":{"_index":".ds-a-1","status":409,"error":{"type":"version_conflict_engine_exception","reason":"[x]: version conflict, document already exists"}}},` +
			`{"create":{"_index":"a","status":400,"error":{"type":"index_closed_exception","reason":"closed \"a\""}}},{"create":{"_index":"\u0061b","status":201}}]}`,
		` { "items" : [ { "create" : { "status" : 429 , "_index" : "x" } } , { "index" : { "status" : 201 } } ] , "errors" : true } `,
		`{"errors":false,"items":[]}`, `{"errors":false}`,
	}
	for _, a := range answers {
		got, err := parseBulkAnswer([]byte(a))
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		var want struct{ Items []bulkItem }
		if err := json.Unmarshal([]byte(a), &want); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want.Items) || len(got) > 0 && !reflect.DeepEqual(got, want.Items) {
			t.Errorf("%s:\n got %+v\nwant %+v", a, got, want.Items)
		}
	}
}

func TestABrokenBulkAnswerIsAnError(t *testing.T) {
	for _, a := range []string{``, `{"items":[{"create":{"_index":"a","status":201}}`, `{"items":[{"create":{"status":"x"}}]}`, `{"items":{}}`, `[]`} {
		if _, err := parseBulkAnswer([]byte(a)); err == nil {
			t.Errorf("%q: no error", a)
		}
	}
}

// TestOnlyOrdinaryBodiesArePooled: a batch of large events is not kept.
func TestOnlyOrdinaryBodiesArePooled(t *testing.T) {
	big := bytes.NewBuffer(make([]byte, 0, maxPooledBody+1))
	recycleBody(big)
	for range 100 {
		if b := bulkBody(); b == big {
			t.Fatal("a body over the limit came back from the pool")
		} else if b.Len() != 0 {
			t.Fatal("a pooled body was not emptied")
		}
	}
}

// TestCreatedItemsReadAsTheScanner: the byte matcher of the usual answer
// gives what the general scanner gives, and declines every other shape.
func TestCreatedItemsReadAsTheScanner(t *testing.T) {
	taken := []string{
		`{"errors":false,"items":[{"create":{"_index":".ds-a-1","status":201}},{"create":{"_index":".ds-a-1","status":201}},{"create":{"_index":".ds-b-1","status":201}}]}`,
		`{"errors":false,"items":[]}`,
		`{"errors":false,"items":[{"create":{"_index":"é","status":0}}]}`,
	}
	declined := []string{
		`{"errors":true,"items":[{"create":{"_index":"a","status":409,"error":{"type":"t","reason":"r"}}}]}`,
		`{"errors":false,"items":[{"create":{"_index":"a","status":201}}{"create":{"_index":"a","status":201}}]}`,
		`{"errors":false,"items":[{"create":{"_index":"a","status":201}},]}`,
		`{"errors":false,"items":[{"create":{"_index":"a\u0062","status":201}}]}`,
		`{"errors":false,"items":[{"create":{"_index":"a","status":0201}}]}`,
		`{"errors":false,"items":[{"create":{"_index":"a","status":201}}]} `,
		`{"errors":false,"items":[{"create":{"_index":"a","status":201}}]`,
		`{"errors":false,"items":[{"create":{"_index":"a","status":201,"x":1}}]}`,
		`{"errors":false,"items":[{"create":{"_index":"a` + "\x01" + `","status":201}}]}`,
		`{"errors":false,"items":[{"create":{"_index":"a` + "\xff" + `","status":201}}]}`,
		`{"errors":false,"items":[{"index":{"_index":"a","status":201}}]}`,
		` {"errors":false,"items":[]}`,
	}
	for _, a := range taken {
		got, ok := createdItems([]byte(a))
		want, err := parseBulkItems([]byte(a))
		if !ok || err != nil || len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v %v, want %+v %v", a, got, ok, want, err)
		}
	}
	for _, a := range declined {
		if got, ok := createdItems([]byte(a)); ok {
			t.Errorf("%s: taken as %+v", a, got)
		}
	}
}

// FuzzCreatedItems: whatever the byte matcher takes, the general scanner
// reads alike.
func FuzzCreatedItems(f *testing.F) {
	f.Add(`{"errors":false,"items":[{"create":{"_index":".ds-a-1","status":201}},{"create":{"_index":".ds-b-1","status":201}}]}`)
	f.Add(`{"errors":false,"items":[]}`)
	f.Fuzz(func(t *testing.T, a string) {
		got, ok := createdItems([]byte(a))
		if !ok {
			return
		}
		var want struct{ Items []bulkItem }
		if err := json.Unmarshal([]byte(a), &want); err != nil || !json.Valid([]byte(a)) {
			t.Fatalf("%q taken, but encoding/json: %v", a, err)
		}
		if len(got) != len(want.Items) || len(got) > 0 && !reflect.DeepEqual(got, want.Items) {
			t.Fatalf("%q:\n got %+v\nwant %+v", a, got, want.Items)
		}
	})
}
