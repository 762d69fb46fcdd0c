package elasticsearch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
)

// TestStoredDocumentIsWhatTheStoreWrites: the benchmark's copier is given
// StoredDocument's bytes as the documents the indexer writes, so each
// must be, byte for byte, the _source Elasticsearch holds for that event
// once the store wrote it (acceptance tag included).
func TestStoredDocumentIsWhatTheStoreWrites(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 7, Tenants: 3, WithIDs: true}, 60)
	events := make([]audit.Event, 60)
	for i := range events {
		events[i] = g.Next()
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	pattern := s.Client().Config().IndexPrefix + "-events-*"
	refresh(t, s, pattern)
	ids := make([]string, len(events))
	for i := range events {
		ids[i] = events[i].ID
	}
	var out struct {
		Hits struct {
			Hits []struct {
				Source json.RawMessage `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	body := map[string]any{"size": len(ids), "query": map[string]any{"terms": map[string]any{"id": ids}}}
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+pattern+"/_search", body, &out); err != nil {
		t.Fatal(err)
	}
	stored := map[string][]byte{}
	for _, h := range out.Hits.Hits {
		var key struct{ ID string }
		if err := json.Unmarshal(h.Source, &key); err != nil {
			t.Fatal(err)
		}
		stored[key.ID] = h.Source
	}
	if len(stored) != len(events) {
		t.Fatalf("found %d of the %d events written", len(stored), len(events))
	}
	tagged := 0
	for i := range events {
		doc := s.StoredDocument(&events[i])
		if !bytes.Equal(doc, stored[events[i].ID]) {
			t.Fatalf("event %s:\n StoredDocument %s\n stored         %s", events[i].ID, doc, stored[events[i].ID])
		}
		if bytes.Contains(doc, []byte(`"accept":`)) {
			tagged++
		}
	}
	if tagged != len(events) {
		t.Fatalf("%d of %d documents carry an acceptance tag", tagged, len(events))
	}
}

// TestStreamEventsIndexIsAStreamsIndex: the plain index the copier writes
// the store's documents into has the settings and mappings Elasticsearch
// gave a backing index of the store's streams, so that the cluster does
// the same work for a document in either.
func TestStreamEventsIndexIsAStreamsIndex(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{})
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, 1)
	e := g.Next()
	if _, err := s.WriteEvents(ctx, []audit.Event{e}); err != nil {
		t.Fatal(err)
	}
	prefix := s.Client().Config().IndexPrefix
	plain := prefix + "-copier-plain"
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/"+plain, s.StreamEventsIndex(), nil); err != nil {
		t.Fatal(err)
	}
	backing := indexSettings(t, s, prefix+"-events-*")
	mine := indexSettings(t, s, plain)
	if len(backing) == 0 || len(mine) != 1 {
		t.Fatalf("settings of %d backing indices, %d plain", len(backing), len(mine))
	}
	var want, got map[string]any
	for _, v := range backing {
		want = v
	}
	for _, v := range mine {
		got = v
	}
	for _, k := range []string{"index.sort.field", "index.sort.order", "index.codec", "index.number_of_shards", "index.number_of_replicas"} {
		if want[k] == nil || !reflect.DeepEqual(want[k], got[k]) {
			t.Errorf("%s: the stream's backing index has %v, the plain index %v", k, want[k], got[k])
		}
	}
	if wm, pm := indexMappings(t, s, prefix+"-events-*"), indexMappings(t, s, plain); !reflect.DeepEqual(wm, pm) {
		t.Errorf("mappings differ:\n stream %v\n plain  %v", wm, pm)
	}
}

func indexSettings(t *testing.T, s *elasticsearch.Store, pattern string) map[string]map[string]any {
	t.Helper()
	var out map[string]struct {
		Settings map[string]any `json:"settings"`
	}
	if err := s.Client().DoJSON(context.Background(), http.MethodGet, "/"+pattern+"/_settings?flat_settings=true", nil, &out); err != nil {
		t.Fatal(err)
	}
	m := map[string]map[string]any{}
	for k, v := range out {
		m[k] = v.Settings
	}
	return m
}

// indexMappings is the field mappings of the first index of pattern.
func indexMappings(t *testing.T, s *elasticsearch.Store, pattern string) any {
	t.Helper()
	var out map[string]struct {
		Mappings map[string]any `json:"mappings"`
	}
	if err := s.Client().DoJSON(context.Background(), http.MethodGet, "/"+pattern+"/_mapping", nil, &out); err != nil {
		t.Fatal(err)
	}
	for _, v := range out {
		delete(v.Mappings, "_data_stream_timestamp")
		return v.Mappings
	}
	return nil
}
