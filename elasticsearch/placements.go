package elasticsearch

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/auditlog/auditlog/audit"
)

// batchPlacements returns the placement of every tenant of a batch, by
// lower-cased tenant id, registering the tenants first seen (EnsureTenant
// with the default plan). The entries not cached are read first in one
// _mget, so that a batch from hundreds of tenants (the shared layout's
// long tail) costs one directory round trip, not one per tenant each time
// the cache expires.
func (s *Store) batchPlacements(ctx context.Context, events []audit.Event) (map[string]placement, error) {
	tenants := make(map[string]placement, 16)
	for i := range events {
		tenants[events[i].TenantID] = placement{}
	}
	s.prefetchPlacements(ctx, tenants)
	for t := range tenants {
		p, err := s.ensurePlacement(ctx, t, s.cfg.DefaultPlan)
		if err != nil {
			return nil, err
		}
		tenants[t] = p
	}
	return tenants, nil
}

// prefetchPlacements caches, from one _mget, the directory entries of the
// tenants whose placement is not cached. It is an optimisation only: on
// any failure it does nothing, and ensurePlacement reads again and reports
// the error there.
func (s *Store) prefetchPlacements(ctx context.Context, tenants map[string]placement) {
	ids := make([]string, 0, len(tenants))
	for t := range tenants {
		if _, ok := s.cached(t); !ok {
			ids = append(ids, t)
		}
	}
	if len(ids) < 2 { // one tenant: place's own GET is as cheap
		return
	}
	body, _ := json.Marshal(map[string]any{"ids": ids})
	res, err := s.c.Do(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_mget?filter_path=docs._id,docs.found,docs._source", body)
	if err != nil || res.Status != http.StatusOK {
		return
	}
	var out struct {
		Docs []struct {
			ID     string    `json:"_id"`
			Found  bool      `json:"found"`
			Source placement `json:"_source"`
		} `json:"docs"`
	}
	if json.Unmarshal(res.Body, &out) != nil {
		return
	}
	for _, d := range out.Docs {
		if d.Found && d.Source.Plan.Valid() {
			s.remember(d.ID, d.Source)
		}
	}
}
