package elasticsearch

import (
	"encoding/json"
	"fmt"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/mappings"
)

// PlainEventsIndex is the create-index body of one plain index (no data
// stream, one shard) holding events exactly as the API writes them, with
// the events' own mapping (mappings/events.json) but timestamp a date
// rather than an alias of @timestamp: the index the benchmark's plain
// copier writes into, so that Elasticsearch maps the same fields for it
// as for the indexer.
func PlainEventsIndex() (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(mappings.Events(), &m); err != nil {
		return nil, err
	}
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("mappings/events.json has no properties")
	}
	props["timestamp"] = map[string]any{"type": "date"}
	return map[string]any{"settings": map[string]any{"number_of_shards": 1, "number_of_replicas": 0}, "mappings": m}, nil
}

// StreamEventsIndex is the create-index body of one plain index with the
// settings and mappings of the store's events streams (index sorting,
// compression), without a lifecycle policy: where the benchmark's copier
// writes the store's own documents (StoredDocument), so that the cluster
// does for each of them what it does for the indexer's.
func (s *Store) StreamEventsIndex() map[string]any {
	return map[string]any{"settings": s.streamSettings(), "mappings": json.RawMessage(mappings.Events())}
}

// StoredDocument is the _source the store writes for e when it is
// accepted: the document of its stream, acceptance tag included.
func (s *Store) StoredDocument(e *audit.Event) []byte {
	return appendDoc(nil, e, s.accept([]audit.Event{*e})[0].tag)
}
