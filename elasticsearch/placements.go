package elasticsearch

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// prefetchPlacements reads, in one _mget, the directory entries of the
// tenants among tenantIDs whose placement is not cached, and caches those
// found. A batch of events from hundreds of tenants (the shared layout's
// long tail) then costs one directory round trip instead of one per
// tenant each time the cache expires. It is an optimisation only: on any
// failure it does nothing, and WriteEvents' per-tenant lookup (place,
// then EnsureTenant for a tenant first seen) reads again and reports the
// error there.
func (s *Store) prefetchPlacements(ctx context.Context, tenantIDs []string) {
	ids := make([]string, 0, len(tenantIDs))
	for _, t := range tenantIDs {
		if _, ok := s.cached(t); !ok {
			ids = append(ids, strings.ToLower(t))
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

// tenantsOf returns the distinct tenant ids of a batch, lower-cased.
func tenantsOf(events []audit.Event) []string {
	seen := make(map[string]struct{}, 16)
	out := make([]string, 0, 16)
	for i := range events {
		t := strings.ToLower(events[i].TenantID)
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}
