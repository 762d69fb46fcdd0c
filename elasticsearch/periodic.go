package elasticsearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
)

// PeriodicIndex holds each tenant's periodic export state (document id:
// the tenant); PeriodicRecordsIndex its delivered windows and late files
// (document id: tenant, window start and late number).
func (s *Store) PeriodicIndex() string { return s.prefix() + "-periodic" }

// PeriodicRecordsIndex: see PeriodicIndex.
func (s *Store) PeriodicRecordsIndex() string { return s.prefix() + "-periodic-records" }

// PeriodicState implements periodic.Store.
func (s *Store) PeriodicState(ctx context.Context, tenantID string) (periodic.State, error) {
	st, rev, found, err := getDoc[periodic.State](ctx, s, s.PeriodicIndex(), tenantID, "the periodic state of "+tenantID)
	if err != nil || !found {
		return periodic.State{TenantID: tenantID}, err
	}
	st.Rev = rev
	return st, nil
}

// PutPeriodicState implements periodic.Store.
func (s *Store) PutPeriodicState(ctx context.Context, st *periodic.State) error {
	what := "the periodic state of tenant " + st.TenantID
	if st.Rev == "" {
		rev, created, err := s.createDoc(ctx, s.PeriodicIndex(), st.TenantID, what, st, true)
		if err != nil {
			return err
		}
		if !created {
			return audit.Errorf(audit.ECONFLICT, "%s changed meanwhile", what)
		}
		st.Rev = rev
		return nil
	}
	rev, err := s.putIfUnchanged(ctx, s.PeriodicIndex(), st.TenantID, st.Rev, what, st, nil)
	if err != nil {
		return err
	}
	st.Rev = rev
	return nil
}

// PutPeriodicRecord implements periodic.Store.
func (s *Store) PutPeriodicRecord(ctx context.Context, r periodic.Record) error {
	doc := url.PathEscape(fmt.Sprintf("%s:%d:%d", r.TenantID, r.WindowStart.UnixMilli(), r.Late))
	return s.c.DoJSON(ctx, http.MethodPut, "/"+s.PeriodicRecordsIndex()+"/_doc/"+doc+"?refresh=true", r, nil)
}

// PeriodicRecords implements periodic.Store.
func (s *Store) PeriodicRecords(ctx context.Context, tenantID, cursor string, limit int) ([]periodic.Record, string, error) {
	start, late, err := periodic.ParseRecordCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	body := map[string]any{
		"size":  limit,
		"query": map[string]any{"term": map[string]any{"tenantId": tenantID}},
		"sort":  []any{map[string]any{"windowStart": "desc"}, map[string]any{"late": "asc"}},
	}
	if cursor != "" {
		body["search_after"] = []any{start, late}
	}
	var out struct {
		Hits struct {
			Hits []struct {
				Source periodic.Record `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.PeriodicRecordsIndex()+"/_search", body, &out); err != nil {
		return nil, "", err
	}
	recs := make([]periodic.Record, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		recs = append(recs, h.Source)
	}
	return recs, periodic.RecordCursor(recs, limit), nil
}
