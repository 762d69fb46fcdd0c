package elasticsearch

import (
	"context"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"sort"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Retention authorized by the log (issue 53, audit/retention/planhistory.go): the
// lifecycle pass deletes a tenant's events under the plan its log
// records, never under the directory's plan alone, which whoever can
// write the cluster could edit.

// systemRecord is one of a tenant's plan change, retention or legal hold
// records as stored, with its order in the log: its leaf index once sealed.
type systemRecord struct {
	event audit.Event
	tag   []byte
	leaf  *vlog.Leaf
}

// loggedPlans returns, for each tenant, the plan in force as its log
// records it (retention.PlanInForce over its plan change and retention
// records that are the service's own, in log order), or the default plan
// when it records none.
func (s *Store) loggedPlans(ctx context.Context, tenants []string) (map[string]audit.Plan, error) {
	records, err := s.systemRecords(ctx, tenants,
		map[string]any{"term": map[string]any{"actor.id": audit.SystemActor.ID}},
		map[string]any{"terms": map[string]any{"resource.type": []string{audit.ResourceTenantPlan, audit.ResourceLogRetention}}})
	if err != nil {
		return nil, err
	}
	out := make(map[string]audit.Plan, len(tenants))
	for _, t := range tenants {
		out[t] = retention.PlanInForce(s.inLogOrder(records[t]), s.cfg.DefaultPlan)
	}
	return out, nil
}

// inLogOrder returns the events of the records the service accepted (an
// acceptance tag that verifies), in the order of the log: sealed ones by
// leaf index, then the others by time.
func (s *Store) inLogOrder(records []systemRecord) []audit.Event {
	var sealed []systemRecord
	var pending []audit.Event
	for _, r := range records {
		var leafHash *tlog.Hash
		if r.leaf != nil {
			leafHash = &r.leaf.Hash
		}
		switch {
		case s.cfg.Accept.Authentic(&r.event, r.tag, leafHash) != nil:
		case r.leaf != nil:
			sealed = append(sealed, r)
		default:
			pending = append(pending, r.event)
		}
	}
	sort.Slice(sealed, func(a, b int) bool { return sealed[a].leaf.Index < sealed[b].leaf.Index })
	ordered := make([]audit.Event, 0, len(sealed)+len(pending))
	for _, r := range sealed {
		ordered = append(ordered, r.event)
	}
	return append(ordered, retention.InTimeOrder(pending)...)
}

// systemRecords reads the tenants' records that match the clauses (the
// service's plan change and retention records, legal holds' records)
// from every stream and the held indices (a copy in two is one record),
// each with its leaf when it is sealed.
func (s *Store) systemRecords(ctx context.Context, tenants []string, clauses ...any) (map[string][]systemRecord, error) {
	out := map[string][]systemRecord{}
	seen := map[string]bool{}
	for start := 0; start < len(tenants); start += 1000 {
		part := tenants[start:min(start+1000, len(tenants))]
		body := map[string]any{
			"sort": []any{map[string]any{"@timestamp": "asc"}, map[string]any{"id": "asc"}},
			"query": map[string]any{"bool": map[string]any{"filter": append([]any{
				map[string]any{"terms": map[string]any{"tenantId": part}}}, clauses...)}}}
		err := s.searchPages(ctx, "/"+s.AllStreamsPattern()+"/_search?ignore_unavailable=true&allow_no_indices=true", body, 5000, func(hits []pageHit) error {
			for _, h := range hits {
				d, err := decodeStoredDoc(h.Source)
				if err != nil {
					continue // no event: nothing it says is taken
				}
				e := d.event()
				if k := e.TenantID + "/" + e.ID; !seen[k] {
					seen[k] = true
					r := systemRecord{event: e, tag: d.Accept}
					if l, err := s.LeafOf(ctx, e.TenantID, e.ID); err == nil {
						r.leaf = &l
					} else if audit.ErrorCode(err) != audit.ENOTFOUND {
						return err
					}
					out[e.TenantID] = append(out[e.TenantID], r)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// restorePlans puts back, for every tenant of the directory whose plan is
// not the plan its log records, the logged plan (SetPlan, which moves the
// tenant's shared data as a plan change does), and names each
// (Retention.Restored): the directory is what routes writes and reads,
// and whoever can write the cluster could edit it.
func (s *Store) restorePlans(ctx context.Context, rep *LifecycleReport) error {
	// What was written before the pass (a plan change's record) is read.
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true&ignore_unavailable=true", nil, nil); err != nil {
		return err
	}
	for after := ""; ; {
		page, err := s.Tenants(ctx, after, audit.MaxTenantPage)
		if err != nil || len(page) == 0 {
			return err
		}
		ids := make([]string, len(page))
		for i, t := range page {
			ids[i] = t.ID
		}
		logged, err := s.loggedPlans(ctx, ids)
		if err != nil {
			return err
		}
		for _, t := range page {
			if want := logged[t.ID]; want != t.Plan {
				if err := s.SetPlan(ctx, t.ID, want); err != nil {
					return err
				}
				rep.Retention.Restored = append(rep.Retention.Restored, retention.PlanRestored{TenantID: t.ID, Directory: t.Plan, Logged: want})
			}
		}
		after = page[len(page)-1].ID
	}
}
