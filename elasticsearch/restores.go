package elasticsearch

import (
	"context"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// RestoresIndex holds the restore requests. A request's document id is
// its tenant and request id, and the request id derives from the
// idempotency key, so a repeated ask is a create conflict.
func (s *Store) RestoresIndex() string { return s.prefix() + "-restores" }

func restoreDoc(tenantID, requestID string) string { return tenantID + ":" + requestID }

func recordOf(h hit[audit.RestoreRecord]) audit.RestoreRecord {
	r := h.Source
	r.Rev = h.revision.String()
	return r
}

// CreateRestore implements audit.RestoreStore.
func (s *Store) CreateRestore(ctx context.Context, r audit.RestoreRecord) (audit.RestoreRecord, bool, error) {
	rev, created, err := s.createDoc(ctx, s.RestoresIndex(), restoreDoc(r.TenantID, r.RequestID), "restore", r, true)
	if err != nil {
		return r, false, err
	}
	if !created {
		stored, err := s.GetRestore(ctx, r.TenantID, r.RequestID)
		return stored, false, err
	}
	r.Rev = rev
	return r, true, nil
}

// GetRestore implements audit.RestoreStore.
func (s *Store) GetRestore(ctx context.Context, tenantID, requestID string) (audit.RestoreRecord, error) {
	r, rev, found, err := getDoc[audit.RestoreRecord](ctx, s, s.RestoresIndex(), restoreDoc(tenantID, requestID), "restore "+requestID)
	if err != nil {
		return audit.RestoreRecord{}, err
	}
	if !found {
		return audit.RestoreRecord{}, audit.Errorf(audit.ENOTFOUND, "no restore request %s", requestID)
	}
	r.Rev = rev
	return r, nil
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
			Hits []hit[audit.RestoreRecord] `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.RestoresIndex()+"/_search", body, &out); err != nil {
		return nil, err
	}
	recs := make([]audit.RestoreRecord, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		recs = append(recs, recordOf(h))
	}
	return recs, nil
}

// UpdateRestore implements audit.RestoreStore.
func (s *Store) UpdateRestore(ctx context.Context, r *audit.RestoreRecord) error {
	rev, err := s.putIfUnchanged(ctx, s.RestoresIndex(), restoreDoc(r.TenantID, r.RequestID), r.Rev, "restore "+r.RequestID, r,
		func() error { _, err := s.GetRestore(ctx, r.TenantID, r.RequestID); return err })
	if err != nil {
		return err
	}
	r.Rev = rev
	return nil
}
