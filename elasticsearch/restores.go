package elasticsearch

import (
	"context"
	"github.com/auditlog/auditlog/audit/restorejob"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// RestoresIndex holds the restore requests. A request's document id is
// its tenant and request id, and the request id derives from the
// idempotency key, so a repeated ask is a create conflict.
func (s *Store) RestoresIndex() string { return s.prefix() + "-restores" }

func restoreDoc(tenantID, requestID string) string { return tenantID + ":" + requestID }

func recordOf(h hit[restorejob.Record]) restorejob.Record {
	r := h.Source
	r.Rev = h.revision.String()
	return r
}

// CreateRestore implements restorejob.Store.
func (s *Store) CreateRestore(ctx context.Context, r restorejob.Record) (restorejob.Record, bool, error) {
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

// GetRestore implements restorejob.Store.
func (s *Store) GetRestore(ctx context.Context, tenantID, requestID string) (restorejob.Record, error) {
	r, rev, found, err := getDoc[restorejob.Record](ctx, s, s.RestoresIndex(), restoreDoc(tenantID, requestID), "restore "+requestID)
	if err != nil {
		return restorejob.Record{}, err
	}
	if !found {
		return restorejob.Record{}, audit.Errorf(audit.ENOTFOUND, "no restore request %s", requestID)
	}
	r.Rev = rev
	return r, nil
}

// DueRestores implements restorejob.Store.
func (s *Store) DueRestores(ctx context.Context, now time.Time, limit int) ([]restorejob.Record, error) {
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
			Hits []hit[restorejob.Record] `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.RestoresIndex()+"/_search", body, &out); err != nil {
		return nil, err
	}
	recs := make([]restorejob.Record, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		recs = append(recs, recordOf(h))
	}
	return recs, nil
}

// UpdateRestore implements restorejob.Store.
func (s *Store) UpdateRestore(ctx context.Context, r *restorejob.Record) error {
	rev, err := s.putIfUnchanged(ctx, s.RestoresIndex(), restoreDoc(r.TenantID, r.RequestID), r.Rev, "restore "+r.RequestID, r,
		func() error { _, err := s.GetRestore(ctx, r.TenantID, r.RequestID); return err })
	if err != nil {
		return err
	}
	r.Rev = rev
	return nil
}
