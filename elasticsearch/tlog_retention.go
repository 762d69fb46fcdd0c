package elasticsearch

import (
	"context"
	"maps"

	"net/http"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// recordRetention writes, before the lifecycle deletes the backing index
// idx (every event in it expired under plan at cutoff), one retention
// record per tenant into the tenant's log: how many of its events go, and
// the leaves that held them (audit.RetentionDeletion). The records are
// written and queued for sealing like any event; only then may the index
// go, so a deletion is never without its record (a pass that fails after
// the records writes the same ones again: their ids derive from what they
// record). Nothing is recorded when this store keeps no log. It reports
// whether it wrote records (into the streams' write indices, which are
// then no longer empty).
func (s *Store) recordRetention(ctx context.Context, idx string, plan audit.Plan, cutoff time.Time) (bool, error) {
	if !s.cfg.Log {
		return false, nil
	}
	ids, err := s.idsIn(ctx, idx)
	if err != nil {
		return false, err
	}
	var records []audit.Event
	now := s.cfg.Now()
	for _, tenant := range slices.Sorted(maps.Keys(ids)) {
		d := audit.RetentionDeletion{TenantID: tenant, Plan: plan, Before: cutoff, Deleted: int64(len(ids[tenant]))}
		var leaves []int64
		for i := 0; i < len(ids[tenant]); i += 10000 {
			found, err := s.bundled(ctx, tenant, ids[tenant][i:min(i+10000, len(ids[tenant]))])
			if err != nil {
				return false, err
			}
			for _, l := range found {
				leaves = append(leaves, l)
			}
		}
		slices.Sort(leaves)
		d.Leaves, d.Unsealed = audit.LeafRanges(leaves), d.Deleted-int64(len(leaves))
		records = append(records, d.Records(now)...)
	}
	if len(records) == 0 {
		return false, nil
	}
	res, err := s.WriteEvents(ctx, records)
	if err != nil {
		return false, err
	}
	for _, r := range res {
		if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
			return false, audit.Errorf(audit.EUNAVAILABLE, "writing a retention record of %s: %s %s", idx, r.Status, r.Reason)
		}
	}
	return true, nil
}

// idsIn reads the event ids in a backing index, by tenant.
func (s *Store) idsIn(ctx context.Context, idx string) (map[string][]string, error) {
	out := map[string][]string{}
	var after []any
	for {
		body := map[string]any{"size": 5000, "track_total_hits": false, "_source": []string{"tenantId", "id"}, "sort": []any{"_doc"}}
		if after != nil {
			body["search_after"] = after
		}
		var res struct {
			Hits struct {
				Hits []struct {
					Source struct {
						TenantID string `json:"tenantId"`
						ID       string `json:"id"`
					} `json:"_source"`
					Sort []any `json:"sort"`
				} `json:"hits"`
			} `json:"hits"`
		}
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+idx+"/_search", body, &res); err != nil {
			return nil, err
		}
		for _, h := range res.Hits.Hits {
			out[h.Source.TenantID] = append(out[h.Source.TenantID], h.Source.ID)
		}
		if len(res.Hits.Hits) < 5000 {
			return out, nil
		}
		after = res.Hits.Hits[len(res.Hits.Hits)-1].Sort
	}
}
