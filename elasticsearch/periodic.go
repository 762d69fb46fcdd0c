package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// PeriodicIndex holds each tenant's periodic export state (document id:
// the tenant); PeriodicRecordsIndex its delivered windows and late files
// (document id: tenant, window start and late number).
func (s *Store) PeriodicIndex() string { return s.prefix() + "-periodic" }

// PeriodicRecordsIndex: see PeriodicIndex.
func (s *Store) PeriodicRecordsIndex() string { return s.prefix() + "-periodic-records" }

type periodicHit struct {
	revision
	Source audit.PeriodicState `json:"_source"`
	Found  bool                `json:"found"`
}

// PeriodicState implements audit.PeriodicStore.
func (s *Store) PeriodicState(ctx context.Context, tenantID string) (audit.PeriodicState, error) {
	st := audit.PeriodicState{TenantID: strings.ToLower(tenantID)}
	res, err := s.c.Do(ctx, http.MethodGet, "/"+s.PeriodicIndex()+"/_doc/"+url.PathEscape(st.TenantID), nil)
	if err != nil {
		return st, err
	}
	if res.Status == http.StatusNotFound {
		return st, nil
	}
	if res.Status != http.StatusOK {
		return st, StatusError(http.MethodGet, "periodic state", res)
	}
	var h periodicHit
	if err := json.Unmarshal(res.Body, &h); err != nil {
		return st, audit.Wrap(audit.EINTERNAL, err, "decoding the periodic state of %s", st.TenantID)
	}
	if !h.Found {
		return st, nil
	}
	h.Source.Rev = h.revision.String()
	return h.Source, nil
}

// PutPeriodicState implements audit.PeriodicStore.
func (s *Store) PutPeriodicState(ctx context.Context, st *audit.PeriodicState) error {
	st.TenantID = strings.ToLower(st.TenantID)
	doc := url.PathEscape(st.TenantID)
	if st.Rev == "" {
		res, err := s.c.Do(ctx, http.MethodPut, "/"+s.PeriodicIndex()+"/_create/"+doc+"?refresh=true", mustJSON(st))
		if err != nil {
			return err
		}
		switch res.Status {
		case http.StatusCreated:
			st.Rev = revOf(res)
			return nil
		case http.StatusConflict:
			return audit.Errorf(audit.ECONFLICT, "the periodic state of tenant %s changed meanwhile", st.TenantID)
		}
		return StatusError(http.MethodPut, "periodic state", res)
	}
	rev, err := s.putIfUnchanged(ctx, s.PeriodicIndex(), doc, st.Rev, "the periodic state of tenant "+st.TenantID, st, func() error { return nil })
	if err != nil {
		return err
	}
	st.Rev = rev
	return nil
}

// PutPeriodicRecord implements audit.PeriodicStore.
func (s *Store) PutPeriodicRecord(ctx context.Context, r audit.PeriodicRecord) error {
	r.TenantID = strings.ToLower(r.TenantID)
	doc := url.PathEscape(fmt.Sprintf("%s:%d:%d", r.TenantID, r.WindowStart.UnixMilli(), r.Late))
	return s.c.DoJSON(ctx, http.MethodPut, "/"+s.PeriodicRecordsIndex()+"/_doc/"+doc+"?refresh=true", r, nil)
}

// PeriodicRecords implements audit.PeriodicStore.
func (s *Store) PeriodicRecords(ctx context.Context, tenantID, cursor string, limit int) ([]audit.PeriodicRecord, string, error) {
	start, late, err := audit.ParseRecordCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	body := map[string]any{
		"size":  limit,
		"query": map[string]any{"term": map[string]any{"tenantId": strings.ToLower(tenantID)}},
		"sort":  []any{map[string]any{"windowStart": "desc"}, map[string]any{"late": "asc"}},
	}
	if cursor != "" {
		body["search_after"] = []any{start, late}
	}
	var out struct {
		Hits struct {
			Hits []struct {
				Source audit.PeriodicRecord `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.PeriodicRecordsIndex()+"/_search", body, &out); err != nil {
		return nil, "", err
	}
	recs := make([]audit.PeriodicRecord, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		recs = append(recs, h.Source)
	}
	return recs, audit.RecordCursor(recs, limit), nil
}
