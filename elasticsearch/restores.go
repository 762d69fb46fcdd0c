package elasticsearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// RestoresIndex holds the restore requests. A request's document id is
// its tenant and request id, and the request id derives from the
// idempotency key, so a repeated ask is a create conflict.
func (s *Store) RestoresIndex() string { return s.prefix() + "-restores" }

func restoreDoc(tenantID, requestID string) string {
	return url.PathEscape(strings.ToLower(tenantID) + ":" + requestID)
}

type restoreHit struct {
	revision
	Source audit.RestoreRecord `json:"_source"`
	Found  bool                `json:"found"`
}

func (h restoreHit) record() audit.RestoreRecord {
	r := h.Source
	r.Rev = h.revision.String()
	return r
}

// CreateRestore implements audit.RestoreStore.
func (s *Store) CreateRestore(ctx context.Context, r audit.RestoreRecord) (audit.RestoreRecord, bool, error) {
	r.TenantID = strings.ToLower(r.TenantID)
	res, err := s.c.Do(ctx, http.MethodPut, "/"+s.RestoresIndex()+"/_create/"+restoreDoc(r.TenantID, r.RequestID)+"?refresh=true", mustJSON(r))
	if err != nil {
		return r, false, err
	}
	switch res.Status {
	case http.StatusCreated:
		r.Rev = revOf(res)
		return r, true, nil
	case http.StatusConflict:
		stored, err := s.GetRestore(ctx, r.TenantID, r.RequestID)
		return stored, false, err
	}
	return r, false, StatusError(http.MethodPut, "restore", res)
}

// GetRestore implements audit.RestoreStore.
func (s *Store) GetRestore(ctx context.Context, tenantID, requestID string) (audit.RestoreRecord, error) {
	res, err := s.c.Do(ctx, http.MethodGet, "/"+s.RestoresIndex()+"/_doc/"+restoreDoc(tenantID, requestID), nil)
	if err != nil {
		return audit.RestoreRecord{}, err
	}
	if res.Status == http.StatusNotFound {
		return audit.RestoreRecord{}, audit.Errorf(audit.ENOTFOUND, "no restore request %s", requestID)
	}
	if res.Status != http.StatusOK {
		return audit.RestoreRecord{}, StatusError(http.MethodGet, "restore", res)
	}
	var h restoreHit
	if err := json.Unmarshal(res.Body, &h); err != nil {
		return audit.RestoreRecord{}, audit.Wrap(audit.EINTERNAL, err, "decoding restore %s", requestID)
	}
	if !h.Found {
		return audit.RestoreRecord{}, audit.Errorf(audit.ENOTFOUND, "no restore request %s", requestID)
	}
	return h.record(), nil
}

// DueRestores implements audit.RestoreStore.
func (s *Store) DueRestores(ctx context.Context, now time.Time, limit int) ([]audit.RestoreRecord, error) {
	body := map[string]any{
		"size":                limit,
		"seq_no_primary_term": true,
		"query": map[string]any{"bool": map[string]any{
			"filter":   []any{map[string]any{"range": map[string]any{"nextAttemptAt": map[string]any{"lte": now.UTC().Format(time.RFC3339Nano)}}}},
			"must_not": []any{map[string]any{"exists": map[string]any{"field": "deliveredAt"}}},
		}},
		"sort": []any{map[string]any{"nextAttemptAt": "asc"}, map[string]any{"createdAt": "asc"}},
	}
	var out struct {
		Hits struct {
			Hits []restoreHit `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.RestoresIndex()+"/_search", body, &out); err != nil {
		return nil, err
	}
	recs := make([]audit.RestoreRecord, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		recs = append(recs, h.record())
	}
	return recs, nil
}

// UpdateRestore implements audit.RestoreStore.
func (s *Store) UpdateRestore(ctx context.Context, r *audit.RestoreRecord) error {
	r.TenantID = strings.ToLower(r.TenantID)
	rev, err := s.putIfUnchanged(ctx, s.RestoresIndex(), restoreDoc(r.TenantID, r.RequestID), r.Rev, "restore "+r.RequestID, r,
		func() error { _, err := s.GetRestore(ctx, r.TenantID, r.RequestID); return err })
	if err != nil {
		return err
	}
	r.Rev = rev
	return nil
}
