package elasticsearch

import (
	"context"
	"net/http"

	"github.com/auditlog/auditlog/audit"
)

// Tenants implements audit.TenantDirectory: a search of the directory
// sorted by tenant id, resumed with search_after. The first page refreshes
// the (small) directory index first, so a listing sees every tenant
// registered before it began, even one whose first event came a moment ago.
func (s *Store) Tenants(ctx context.Context, after string, limit int) ([]audit.Tenant, error) {
	if err := audit.CheckTenantPage(limit); err != nil {
		return nil, err
	}
	if after == "" {
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_refresh", nil, nil); err != nil {
			return nil, err
		}
	}
	body := map[string]any{
		"size":             limit,
		"sort":             []any{map[string]any{"tenantId": "asc"}},
		"track_total_hits": false,
		"_source":          []string{"tenantId", "plan", "updatedAt"},
	}
	if after != "" {
		body["search_after"] = []any{after}
	}
	var out struct {
		Hits struct {
			Hits []struct {
				Source audit.Tenant `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_search", body, &out); err != nil {
		return nil, err
	}
	tenants := make([]audit.Tenant, 0, len(out.Hits.Hits))
	for _, h := range out.Hits.Hits {
		tenants = append(tenants, h.Source)
	}
	return tenants, nil
}
