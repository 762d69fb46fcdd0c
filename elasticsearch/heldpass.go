package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
)

// heldIndices lists the held indices.
func (s *Store) heldIndices(ctx context.Context) ([]string, error) {
	var out struct {
		Indices []struct {
			Name string `json:"name"`
		} `json:"indices"`
	}
	if err := s.c.DoJSON(ctx, http.MethodGet, "/_resolve/index/"+s.heldPrefix()+"*", nil, &out); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(out.Indices))
	for _, ix := range out.Indices {
		names = append(names, ix.Name)
	}
	return names, nil
}

// retireHeld is retire for a held index: the events there that no hold in
// force keeps any more (a release took effect, a hold's scope narrowed)
// and that their tenant's logged plan no longer keeps are recorded in the
// tenant's log and deleted; the index goes once it is empty and its
// tenant has no hold in force. It returns how many events it deleted.
func (s *Store) retireHeld(ctx context.Context, idx string, now time.Time, rep *LifecycleReport) (int, error) {
	scan, err := s.settledScan(ctx, idx, now, true)
	if err != nil {
		return 0, err
	}
	held, err := s.heldCount(ctx, idx, scan, now)
	if err != nil {
		return 0, err
	}
	rep.Retention.Held += held
	if len(scan.kept) > 0 {
		rep.Retention.Kept = append(rep.Retention.Kept, scan.kept...)
		return 0, nil
	}
	var ids []string
	for _, expired := range scan.expired {
		ids = append(ids, expired...)
	}
	if len(ids) == 0 {
		if len(scan.survivors) == 0 && len(scan.holds) == 0 {
			return 0, s.deleteIndex(ctx, idx)
		}
		return 0, nil
	}
	if _, err := s.recordDeletions(ctx, idx, scan, now); err != nil {
		return 0, err
	}
	if err := s.deleteDocs(ctx, idx, ids); err != nil {
		return 0, fmt.Errorf("deleting what no legal hold keeps from %s: %w", idx, err)
	}
	return len(ids), nil
}

// notHeld matches the events no hold of holds (by tenant) keeps.
func notHeld(holds map[string][]hold.Hold) map[string]any {
	not := make([]any, 0, len(holds))
	for _, t := range slices.Sorted(maps.Keys(holds)) {
		not = append(not, heldClause(t, holds[t]))
	}
	return map[string]any{"bool": map[string]any{"must_not": not}}
}

// heldCount counts the events of the held index idx that the holds in
// force keep past their tenant's retention (LifecycleReport's Held).
func (s *Store) heldCount(ctx context.Context, idx string, scan *retiring, now time.Time) (int64, error) {
	if len(scan.holds) == 0 {
		return 0, nil
	}
	should := make([]any, 0, len(scan.holds))
	for _, t := range slices.Sorted(maps.Keys(scan.holds)) {
		plan := scan.plans[t]
		if plan == "" {
			plan = s.cfg.DefaultPlan
		}
		cutoff := audit.Cutoff(plan, now)
		past := FilterClauses(audit.Filter{TenantID: t, To: &cutoff}) // the list's own translation of a time range
		should = append(should, map[string]any{"bool": map[string]any{"filter": append(past, heldClause(t, scan.holds[t]))}})
	}
	var out struct {
		Count int64 `json:"count"`
	}
	body := map[string]any{"query": map[string]any{"bool": map[string]any{"should": should, "minimum_should_match": 1}}}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+idx+"/_count", body, &out); err != nil {
		return 0, err
	}
	return out.Count, nil
}

// heldPass is the lifecycle pass over the held indices (retireHeld),
// after a refresh: what this pass copied there is read and counted too.
func (s *Store) heldPass(ctx context.Context, now time.Time, rep *LifecycleReport) []error {
	names, err := s.heldIndices(ctx)
	if err == nil && len(names) > 0 {
		err = s.c.DoJSON(ctx, http.MethodPost, "/"+s.heldPrefix()+"*/_refresh?allow_no_indices=true&ignore_unavailable=true", nil, nil)
	}
	if err != nil {
		return []error{fmt.Errorf("listing and refreshing the held indices: %w", err)}
	}
	var failed []error
	for _, idx := range names {
		n, err := s.retireHeld(ctx, idx, now, rep)
		rep.Released += n
		if err != nil {
			if ctx.Err() != nil {
				return append(failed, ctx.Err())
			}
			rep.Failed = append(rep.Failed, idx)
			failed = append(failed, fmt.Errorf("%s: %w", idx, err))
		}
	}
	return failed
}

// deleteDocs deletes the documents ids (a held index's ids are its
// events' ids) from idx, and makes the deletion visible.
func (s *Store) deleteDocs(ctx context.Context, idx string, ids []string) error {
	for start := 0; start < len(ids); start += 5000 {
		var buf bytes.Buffer
		for _, id := range ids[start:min(start+5000, len(ids))] {
			buf.WriteString(`{"delete":{"_index":`)
			writeJSONString(&buf, idx)
			buf.WriteString(`,"_id":`)
			writeJSONString(&buf, id)
			buf.WriteString("}}\n")
		}
		res, err := s.c.Do(ctx, http.MethodPost, "/_bulk?refresh=true&filter_path=errors,items.*.status,items.*.error.reason", buf.Bytes())
		if err != nil {
			return err
		}
		var out struct {
			Errors bool `json:"errors"`
		}
		if res.Status != http.StatusOK || json.Unmarshal(res.Body, &out) != nil || out.Errors {
			return StatusError(http.MethodPost, "/_bulk", res)
		}
	}
	return nil
}
