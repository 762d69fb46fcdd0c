package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/auditlog/auditlog/audit/vlog"
)

// The upgrade to the word model (mapping version 6): a document written
// before it has no text, and free text finds it through the old analysis
// (search.go). Each lifecycle pass writes up to reanalyzeBatch such
// documents again, in place, from the events they hold (as RepairIndex
// does), so that a store upgraded in place comes to one analysis without
// a step of its operator's; LifecycleReport.Reanalyzed counts them. Every
// document of version 6 has a text (appendText), so the pass stops
// finding any once all are written. A document that changed meanwhile is
// left to the next pass (if_seq_no), and one in a read-only or closed
// index stays as it is, found as before.
const reanalyzeBatch = 5000

// reanalyze is one pass's part of the upgrade.
func (s *Store) reanalyze(ctx context.Context, rep *LifecycleReport) error {
	var found writableHits
	body := map[string]any{"size": reanalyzeBatch, "seq_no_primary_term": true, "track_total_hits": false,
		"query": map[string]any{"bool": map[string]any{"must_not": []any{map[string]any{"exists": map[string]any{"field": "text"}}}}}}
	path := "/" + s.AllStreamsPattern() + "/_search?ignore_unavailable=true&allow_no_indices=true&expand_wildcards=open"
	if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &found); err != nil {
		return err
	}
	if len(found.Hits.Hits) == 0 {
		return nil
	}
	var bulk bytes.Buffer
	for _, h := range found.Hits.Hits {
		d, err := decodeStoredDoc(h.Source)
		e := d.event() // a shared stream's document id is "<tenant>:<id>"
		row := vlog.CheckedRow(strings.TrimPrefix(h.ID, e.TenantID+":"), e.TenantID, e, err)
		if row.Err != nil {
			continue // a malformed document is nothing to index from; verification names it
		}
		meta := map[string]any{"_index": h.Index, "_id": h.ID, "if_seq_no": h.SeqNo, "if_primary_term": h.Term}
		if h.Route != "" {
			meta["routing"] = h.Route
		}
		line, _ := json.Marshal(map[string]any{"index": meta})
		bulk.Write(append(line, '\n'))
		bulk.Write(append(appendDoc(nil, &row.Event, d.Accept), '\n'))
	}
	if bulk.Len() == 0 {
		return nil
	}
	res, err := s.c.Do(ctx, http.MethodPost, "/_bulk", bulk.Bytes())
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK {
		return StatusError(http.MethodPost, "/_bulk (reanalyzing documents)", res)
	}
	var answer struct {
		Items []map[string]struct {
			Status int `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal(res.Body, &answer); err != nil {
		return fmt.Errorf("reanalyzing documents: %w", err)
	}
	for _, it := range answer.Items {
		if it["index"].Status < 300 {
			rep.Reanalyzed++
		}
	}
	return nil
}
