package elasticsearch

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"
	"slices"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// ScanRows implements vlog.RowScanner: every document of the tenant in
// its streams, in the order of its id, then its time (search_after, a
// page of ScanPageSize at a time; Elasticsearch does not sort on _id).
// Each is decoded on its own and strictly, so a document edited into
// something that is not an event (a number where a string belongs, a
// member the mapping's object takes but the event has not) is that row's
// Err and the reading goes on; Elasticsearch itself keeps only valid
// JSON. A document whose search fields differ from what its event implies
// has them in Misindexed.
func (s *Store) ScanRows(ctx context.Context, tenantID string, fn func([]vlog.StoredRow) error) ([]vlog.IndexFinding, error) {
	path, err := s.tenantPath(ctx, tenantID, "_search")
	if err != nil {
		return nil, err
	}
	body := map[string]any{"query": map[string]any{"term": map[string]any{"tenantId": tenantID}},
		"sort": []any{map[string]any{"id": "asc"}, map[string]any{"@timestamp": "asc"}}}
	err = s.searchPages(ctx, path, body, s.cfg.ScanPageSize, func(hits []pageHit) error {
		rows := make([]vlog.StoredRow, len(hits))
		for i, h := range hits {
			// In a plan's shared stream a document is filed as
			// tenant:id (targetOf), in a tenant's own stream as id.
			d, err := decodeStoredDoc(h.Source)
			rows[i] = vlog.CheckedRow(strings.TrimPrefix(h.ID, tenantID+":"), tenantID, d.event(), err)
			rows[i].Tag = d.Accept
			if rows[i].Err == nil {
				rows[i].Misindexed = d.misindexed(&rows[i].Event)
			}
		}
		return fn(rows)
	})
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return nil, nil // the tenant has no stream yet
	}
	// The statistics are aggregations over the documents, kept nowhere
	// else: there is no count to disagree.
	return nil, err
}

// misindexed names the fields of the document that are not the event's
// but derived from it for search (toDoc), and that differ from what e
// implies: an edited text or changedFields hides e from free text and
// from a changed-field filter while its proof, over the event alone,
// holds.
func (d *doc) misindexed(e *audit.Event) []string {
	want := toDoc(e)
	var out []string
	if !slices.Equal(d.ChangedFields, want.ChangedFields) {
		out = append(out, "changedFields")
	}
	// A document written before mapping version 6 has no text: its words
	// are the old analysis's (values, words, reasonText, or no acceptance
	// tag before version 5), not judged, until the lifecycle pass writes
	// it again from the event (reanalyze.go). One written since always
	// has text ([""] when the event has no word): without it, it was
	// removed.
	if d.Text == nil && (d.Accept == nil || d.Values != nil || d.Words != nil || d.ReasonText != "") {
		return out
	}
	if !slices.Equal(d.Text, want.Text) {
		out = append(out, "text")
	}
	if d.ReasonWords != want.ReasonWords {
		out = append(out, "reasonWords")
	}
	return out
}
