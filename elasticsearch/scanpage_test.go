package elasticsearch_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/elasticsearch"
)

// TestParseScanPageFindsWhatEncodingJSONFinds: the export scan's page
// parser finds each hit's source and sort and the point in time's id as
// encoding/json decodes them (the oracle), through members it skips,
// white space, and values that spell "_source" or "sort" inside strings.
func TestParseScanPageFindsWhatEncodingJSONFinds(t *testing.T) {
	page := `{"pit_id":"p\u00e9-1","took":3,"timed_out":false,"_shards":{"total":1},
	 "hits" : {"total":{"value":2},"max_score":null,"hits":[
	  {"_index":"i","_id":"a","_score":null,"_source":{"id":"evt_1","note":"\"_source\":{} sort"},"sort":[1,"x"]},
	  { "sort" : [2,"y"] , "_source" : {"id":"evt_2","words":["sort","_source"]} }
	 ]}}`
	var ref struct {
		PitID string `json:"pit_id"`
		Hits  struct {
			Hits []struct {
				Source json.RawMessage `json:"_source"`
				Sort   json.RawMessage `json:"sort"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(page), &ref); err != nil {
		t.Fatal(err)
	}
	got, err := elasticsearch.ParseScanPage([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if got.PitID != ref.PitID || len(got.Sources) != 2 || len(got.Sorts) != 2 {
		t.Fatalf("got pit %q, %d sources, %d sorts; want %q and 2", got.PitID, len(got.Sources), len(got.Sorts), ref.PitID)
	}
	for i, h := range ref.Hits.Hits {
		if !bytes.Equal(got.Sources[i], h.Source) || !bytes.Equal(got.Sorts[i], h.Sort) {
			t.Errorf("hit %d: %s %s, want %s %s", i, got.Sources[i], got.Sorts[i], h.Source, h.Sort)
		}
	}
	empty, err := elasticsearch.ParseScanPage([]byte(`{"pit_id":"q","hits":{"hits":[]}}`))
	if err != nil || empty.PitID != "q" || len(empty.Sources) != 0 {
		t.Fatalf("empty page: %+v %v", empty, err)
	}
}

// TestParseScanPageRefusesWhatIsNoPage: a cut answer, a hit without its
// source or sort, and bytes after the answer are errors, never a page
// that silently lost a hit.
func TestParseScanPageRefusesWhatIsNoPage(t *testing.T) {
	for name, page := range map[string]string{
		"cut":             `{"pit_id":"p","hits":{"hits":[{"_source":{"id":"evt_1"},"sort":[1]},{"_source":{"id":`,
		"no sort":         `{"pit_id":"p","hits":{"hits":[{"_source":{"id":"evt_1"}}]}}`,
		"no source":       `{"pit_id":"p","hits":{"hits":[{"sort":[1]}]}}`,
		"two sources":     `{"pit_id":"p","hits":{"hits":[{"_source":{},"_source":{},"sort":[1]}]}}`,
		"trailing":        `{"pit_id":"p","hits":{"hits":[]}} {}`,
		"not an object":   `[]`,
		"pit not string":  `{"pit_id":7,"hits":{"hits":[]}}`,
		"hits not array":  `{"pit_id":"p","hits":{"hits":{}}}`,
		"unclosed string": `{"pit_id":"p`,
	} {
		if got, err := elasticsearch.ParseScanPage([]byte(page)); err == nil {
			t.Errorf("%s: parsed %+v, want an error", name, got)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%s: an empty error", name)
		}
	}
}
