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
