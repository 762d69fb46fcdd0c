package elasticsearch

import (
	"context"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// moveSettle is how long after a plan change the lifecycle pass keeps
// copying a tenant's events out of its former plan's shared stream: longer
// than any writer's tenant cache (TenantCacheTTL, 30 s by default), during
// which a writer may still send the tenant's events there.
const moveSettle = 10 * time.Minute

// consolidate copies the tenant's events within its current plan's
// retention out of from's shared stream, to where it now writes, and
// returns how many it copied. It is idempotent: events already there
// (found by StoredEvents, or answered 409) are not written twice. Older
// events are past the retention and never shown; they leave with their
// backing index.
func (s *Store) consolidate(ctx context.Context, tenantID string, from audit.Plan) (int, error) {
	s.forget(tenantID)
	p, err := s.place(ctx, tenantID)
	if err != nil {
		return 0, err
	}
	src := "/" + s.SharedStreamName(from)
	if err := s.c.DoJSON(ctx, http.MethodPost, src+"/_refresh?ignore_unavailable=true&allow_no_indices=true", nil, nil); err != nil {
		return 0, err
	}
	cutoff := audit.Cutoff(p.Plan, s.cfg.Now())
	body := map[string]any{
		"sort": []any{map[string]any{"@timestamp": "asc"}, map[string]any{"id": "asc"}},
		"query": map[string]any{"bool": map[string]any{"filter": []any{
			map[string]any{"term": map[string]any{"tenantId": tenantID}},
			map[string]any{"range": map[string]any{"@timestamp": map[string]any{"gte": cutoff.UnixMilli(), "format": "epoch_millis"}}},
		}}},
	}
	copied := 0
	err = s.searchPages(ctx, src+"/_search?ignore_unavailable=true&allow_no_indices=true", body, 1000, func(hits []pageHit) error {
		events := make([]accepted, 0, len(hits))
		for _, h := range hits {
			// A copy keeps the tag of the event's acceptance: it is not
			// accepted again (a document planted in the stream would be
			// laundered into an accepted one).
			e, tag, err := decodeTagged(h.Source)
			if err != nil {
				return err
			}
			events = append(events, accepted{event: &e, digest: vlog.EventDigest(&e), tag: tag})
		}
		n, err := s.copyEvents(ctx, tenantID, events)
		copied += n
		return err
	})
	return copied, err
}

// copyEvents writes those of events not already stored where the tenant's
// events are read.
func (s *Store) copyEvents(ctx context.Context, tenantID string, events []accepted) (int, error) {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.event.ID
	}
	stored, err := s.StoredEvents(ctx, tenantID, ids)
	if err != nil {
		return 0, err
	}
	return s.writeAbsent(ctx, events, func(id string) bool { _, ok := stored[id]; return ok })
}

// writeAbsent writes, with their tags, those of events that are not
// present, and returns how many it created (one already there, answered
// 409, is not counted); each one not written is named in the error.
func (s *Store) writeAbsent(ctx context.Context, events []accepted, present func(id string) bool) (int, error) {
	var todo []accepted
	for _, e := range events {
		if !present(e.event.ID) {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	res, err := s.writeAccepted(ctx, todo, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for i, r := range res {
		switch r.Status {
		case audit.WriteCreated:
			n++
		case audit.WriteDuplicate:
		default:
			errs = append(errs, fmt.Errorf("event %s: %s %s", todo[i].event.ID, r.Status, r.Reason))
		}
	}
	return n, errors.Join(errs...)
}

// finishMoves copies again the events of the tenants whose plan changed
// less than moveSettle ago out of their former plan's shared stream (a
// writer with a stale cache may have put some there since), and clears
// the mark of those past it.
func (s *Store) finishMoves(ctx context.Context) error {
	var out struct {
		Hits struct {
			Hits []struct {
				Source struct {
					TenantID string `json:"tenantId"`
					placement
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	body := map[string]any{"size": audit.MaxTenantPage, "query": map[string]any{"exists": map[string]any{"field": "movedFrom"}}}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_search", body, &out); err != nil {
		return err
	}
	var errs []error
	for _, h := range out.Hits.Hits {
		t := h.Source
		if _, err := s.consolidate(ctx, t.TenantID, t.MovedFrom); err != nil {
			errs = append(errs, fmt.Errorf("tenant %s: %w", t.TenantID, err))
			continue
		}
		if t.MovedAt != nil && s.cfg.Now().Sub(*t.MovedAt) > moveSettle {
			if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_update/"+t.TenantID+"?refresh=true",
				map[string]any{"doc": map[string]any{"movedFrom": nil, "movedAt": nil}}, nil); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
