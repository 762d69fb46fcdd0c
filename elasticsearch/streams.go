package elasticsearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	auditstream "github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// StreamsIndex holds the tenants' streams, one document each (id
// "tenant:stream"), listed by tenant.
func (s *Store) StreamsIndex() string { return s.prefix() + "-streams" }

// streamsMapping indexes what the list filters and sorts by; the rest of
// a stream is kept, not indexed.
var streamsMapping = json.RawMessage(`{"mappings":{"dynamic":false,"properties":{"tenantId":{"type":"keyword"},"id":{"type":"keyword"},"createdAt":{"type":"date"}}}}`)

func streamDoc(tenantID, id string) string { return tenantID + ":" + id }

// Streams implements stream.Store.
func (s *Store) Streams(ctx context.Context, tenantID string) ([]auditstream.Stream, error) {
	return s.searchStreams(ctx, map[string]any{
		"size": 1000, "seq_no_primary_term": true,
		"query": map[string]any{"term": map[string]any{"tenantId": tenantID}},
		"sort":  []any{map[string]any{"createdAt": "asc"}, map[string]any{"id": "asc"}},
	})
}

// StreamsAfter implements stream.Store.
func (s *Store) StreamsAfter(ctx context.Context, after auditstream.Key, limit int) ([]auditstream.Stream, error) {
	body := map[string]any{
		"size": limit, "seq_no_primary_term": true, "query": map[string]any{"match_all": map[string]any{}},
		"sort": []any{map[string]any{"tenantId": "asc"}, map[string]any{"id": "asc"}},
	}
	if after != (auditstream.Key{}) {
		body["search_after"] = []string{after.TenantID, after.ID}
	}
	return s.searchStreams(ctx, body)
}

func (s *Store) searchStreams(ctx context.Context, body map[string]any) ([]auditstream.Stream, error) {
	var out struct {
		Hits struct {
			Hits []hit[auditstream.Stream] `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.StreamsIndex()+"/_search", body, &out); err != nil {
		return nil, err
	}
	streams := make([]auditstream.Stream, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		st := h.Source
		st.Rev = h.revision.String()
		streams = append(streams, st)
	}
	return streams, nil
}

// Stream implements stream.Store.
func (s *Store) Stream(ctx context.Context, tenantID, id string) (auditstream.Stream, error) {
	st, rev, found, err := getDoc[auditstream.Stream](ctx, s, s.StreamsIndex(), streamDoc(tenantID, id), "stream "+id)
	if err != nil {
		return auditstream.Stream{}, err
	}
	if !found || st.TenantID != tenantID {
		return auditstream.Stream{}, audit.Errorf(audit.ENOTFOUND, "no stream %s", id)
	}
	st.Rev = rev
	return st, nil
}

// PutStream implements stream.Store; written with refresh, so that
// the list shows it at once.
func (s *Store) PutStream(ctx context.Context, st *auditstream.Stream) error {
	return s.putStream(ctx, st, true)
}

// SaveProgress implements stream.Store: PutStream without the refresh.
// A get by id (Stream) and the next conditional write see it at once;
// the lists (a search) after the next refresh.
func (s *Store) SaveProgress(ctx context.Context, st *auditstream.Stream) error {
	return s.putStream(ctx, st, false)
}

// putStream is PutStream, refreshing the index when refresh is set.
func (s *Store) putStream(ctx context.Context, st *auditstream.Stream, refresh bool) error {
	what, id := "stream "+st.ID, streamDoc(st.TenantID, st.ID)
	if st.Rev == "" {
		rev, created, err := s.createDoc(ctx, s.StreamsIndex(), id, what, st, true)
		if err != nil {
			return err
		}
		if !created {
			return audit.Errorf(audit.ECONFLICT, "%s exists", what)
		}
		st.Rev = rev
		return nil
	}
	rev, err := s.casPut(ctx, s.StreamsIndex(), id, st.Rev, what, st, refresh,
		func() error { _, err := s.Stream(ctx, st.TenantID, st.ID); return err })
	if err != nil {
		return err
	}
	st.Rev = rev
	return nil
}

// DeleteStream implements stream.Store.
func (s *Store) DeleteStream(ctx context.Context, tenantID, id string) error {
	res, err := s.c.Do(ctx, http.MethodDelete, "/"+s.StreamsIndex()+"/_doc/"+url.PathEscape(streamDoc(tenantID, id))+"?refresh=true", nil)
	if err != nil {
		return err
	}
	switch res.Status {
	case http.StatusOK:
		return nil
	case http.StatusNotFound:
		return audit.Errorf(audit.ENOTFOUND, "no stream %s", id)
	}
	return StatusError(http.MethodDelete, "stream "+id, res)
}
