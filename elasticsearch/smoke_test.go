package elasticsearch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

func newClient(t *testing.T) *elasticsearch.Client {
	t.Helper()
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: testenv.Name("auditlog-t")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestElasticsearchIsReal proves the test service is a genuine
// Elasticsearch 8.x: the product header on GET / and the node version.
func TestElasticsearchIsReal(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Do(ctx, http.MethodGet, "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Header.Get("X-Elastic-Product"); got != "Elasticsearch" {
		t.Fatalf("GET / X-Elastic-Product = %q, want Elasticsearch", got)
	}
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(caps.Version, "8.") {
		t.Fatalf("version %q, want 8.x", caps.Version)
	}
	t.Logf("Elasticsearch %s; missing: %v", caps.Version, caps.Missing())
}

// TestRootEndpointReportsVersion needs GET / (module rest-root), which the
// integ-test-zip build lacks.
func TestRootEndpointReportsVersion(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireFeature(t, caps.RootEndpoint, "GET / (module rest-root)")
	var info struct {
		Version struct {
			Number string `json:"number"`
		} `json:"version"`
		Tagline string `json:"tagline"`
	}
	if err := c.DoJSON(ctx, http.MethodGet, "/", nil, &info); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Version.Number, "8.") || info.Tagline == "" {
		t.Fatalf("GET / = %+v, want version 8.x and a tagline", info)
	}
}

// TestServerFeatures checks, against the real cluster, every server
// feature the service relies on in all modes (docs/testing.md):
// composable templates, data streams auto-created on op_type=create,
// _rollover, _resolve/index, PIT with search_after, _count, aggregations
// and scroll.
func TestServerFeatures(t *testing.T) {
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := c.Config().IndexPrefix
	must := func(method, path string, body any, out any) {
		t.Helper()
		if err := c.DoJSON(ctx, method, path, body, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	must(http.MethodPut, "/_index_template/"+p, map[string]any{
		"index_patterns": []string{p + "-*"}, "data_stream": map[string]any{}, "priority": 500,
		"template": map[string]any{
			"settings": map[string]any{"number_of_shards": 1, "number_of_replicas": 0},
			"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
				"@timestamp": map[string]any{"type": "date"}, "n": map[string]any{"type": "keyword"}}},
		},
	}, nil)
	ds := p + "-probe"
	for i, ts := range []string{"2026-11-21T09:30:12.345Z", "2026-11-21T09:30:12.345Z", "2026-11-21T10:00:00.000Z"} {
		must(http.MethodPut, "/"+ds+"/_create/id"+string(rune('a'+i))+"?refresh=true", map[string]any{"@timestamp": ts, "n": string(rune('a' + i))}, nil)
	}
	var rolled struct {
		RolledOver bool   `json:"rolled_over"`
		OldIndex   string `json:"old_index"`
	}
	must(http.MethodPost, "/"+ds+"/_rollover", nil, &rolled)
	if !rolled.RolledOver || !strings.HasPrefix(rolled.OldIndex, ".ds-"+ds) {
		t.Fatalf("rollover: %+v", rolled)
	}
	var resolved struct {
		DataStreams []struct {
			Name           string   `json:"name"`
			BackingIndices []string `json:"backing_indices"`
		} `json:"data_streams"`
	}
	must(http.MethodGet, "/_resolve/index/"+ds, nil, &resolved)
	if len(resolved.DataStreams) != 1 || len(resolved.DataStreams[0].BackingIndices) != 2 {
		t.Fatalf("resolve: %+v", resolved)
	}
	var count struct{ Count int }
	must(http.MethodGet, "/"+ds+"/_count", nil, &count)
	if count.Count != 3 {
		t.Fatalf("count %d, want 3", count.Count)
	}
	var pit struct {
		ID string `json:"id"`
	}
	must(http.MethodPost, "/"+ds+"/_pit?keep_alive=1m", nil, &pit)
	var page struct {
		Hits struct {
			Hits []struct {
				ID   string `json:"_id"`
				Sort []any  `json:"sort"`
			} `json:"hits"`
		} `json:"hits"`
		Aggs map[string]json.RawMessage `json:"aggregations"`
	}
	must(http.MethodPost, "/_search", map[string]any{
		"size": 1, "pit": map[string]any{"id": pit.ID, "keep_alive": "1m"},
		"sort":         []any{map[string]any{"@timestamp": "asc"}, map[string]any{"n": "asc"}},
		"search_after": []any{"2026-11-21T09:30:12.345Z", "a"},
		"aggs":         map[string]any{"by_n": map[string]any{"terms": map[string]any{"field": "n"}}, "hist": map[string]any{"date_histogram": map[string]any{"field": "@timestamp", "fixed_interval": "1h"}}},
	}, &page)
	if len(page.Hits.Hits) != 1 || page.Hits.Hits[0].ID != "idb" {
		t.Fatalf("search_after in a PIT: %+v", page.Hits.Hits)
	}
	if page.Aggs["by_n"] == nil || page.Aggs["hist"] == nil {
		t.Fatalf("aggregations missing: %v", page.Aggs)
	}
	must(http.MethodDelete, "/_pit", map[string]any{"id": pit.ID}, nil)
	var scroll struct {
		ScrollID string `json:"_scroll_id"`
	}
	must(http.MethodPost, "/"+ds+"/_search?scroll=1m&size=1", map[string]any{}, &scroll)
	if scroll.ScrollID == "" {
		t.Fatal("scroll: no scroll id")
	}
	must(http.MethodDelete, "/_search/scroll", map[string]any{"scroll_id": scroll.ScrollID}, nil)
	// A duplicate _id in the same backing index is a 409: the idempotency
	// the indexer relies on.
	res, err := c.Do(ctx, http.MethodPut, "/"+ds+"/_create/idc", []byte(`{"@timestamp":"2026-11-21T10:00:00.000Z","n":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	// idc lives in the old backing index, so the new write index accepts
	// it: the documented limit of _id uniqueness (docs/indexer.md).
	if res.Status != http.StatusCreated {
		t.Fatalf("duplicate id after rollover: status %d, want 201 (unique per backing index only)", res.Status)
	}
	res, err = c.Do(ctx, http.MethodPut, "/"+ds+"/_create/idc", []byte(`{"@timestamp":"2026-11-21T10:00:00.000Z","n":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusConflict {
		t.Fatalf("duplicate id in the write index: status %d, want 409", res.Status)
	}
}
