package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/auditlog/auditlog/audit/vlog"
)

// RepairIndex implements vlog.IndexRepairer: each event's document is
// written again, in place (its backing index, id and routing, on the
// condition that nobody wrote it meanwhile), from the event it holds, as
// the writer writes it (appendDoc), so its search fields are derived
// again. The statistics are aggregations over the documents: there are
// no other counts to repair.
func (s *Store) RepairIndex(ctx context.Context, tenantID string, eventIDs []string, _ bool) (int, error) {
	if len(eventIDs) == 0 {
		return 0, nil
	}
	path, err := s.tenantPath(ctx, tenantID, "_search")
	if err != nil {
		return 0, err
	}
	var found writableHits
	body := map[string]any{"size": len(eventIDs), "seq_no_primary_term": true, "track_total_hits": false,
		"query": map[string]any{"bool": map[string]any{"filter": []any{
			map[string]any{"term": map[string]any{"tenantId": tenantID}}, map[string]any{"terms": map[string]any{"id": eventIDs}}}}}}
	if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &found); err != nil {
		return 0, err
	}
	n := 0
	for _, h := range found.Hits.Hits {
		d, err := decodeStoredDoc(h.Source)
		row := vlog.CheckedRow(strings.TrimPrefix(h.ID, tenantID+":"), tenantID, d.event(), err)
		if row.Err != nil {
			continue // a malformed document is nothing to index from
		}
		q := url.Values{"if_seq_no": {fmt.Sprint(h.SeqNo)}, "if_primary_term": {fmt.Sprint(h.Term)}, "refresh": {"true"}}
		if h.Route != "" {
			q.Set("routing", h.Route)
		}
		res, err := s.c.Do(ctx, http.MethodPut, "/"+h.Index+"/_doc/"+url.PathEscape(h.ID)+"?"+q.Encode(), appendDoc(nil, &row.Event, d.Accept))
		if err != nil {
			return n, err
		}
		if res.Status != http.StatusOK && res.Status != http.StatusCreated {
			return n, StatusError(http.MethodPut, "repairing "+h.ID, res)
		}
		n++
	}
	return n, nil
}

// writableHits is a search answer of documents to write again in place:
// where each is (index, id, routing), and on what condition (seq_no_primary_term).
type writableHits struct {
	Hits struct {
		Hits []struct {
			Index  string          `json:"_index"`
			ID     string          `json:"_id"`
			Route  string          `json:"_routing"`
			SeqNo  int64           `json:"_seq_no"`
			Term   int64           `json:"_primary_term"`
			Source json.RawMessage `json:"_source"`
		} `json:"hits"`
	} `json:"hits"`
}
