package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/mappings"
)

// Legal holds against retention (issue 55, audit/hold). A backing index
// goes whole, so the lifecycle pass copies the events past their
// retention that a hold in force keeps, with their acceptance tags, into
// the tenant's held index before the backing index goes (retire), and
// deletes from that index what no hold keeps any more (retireHeld). The
// held index is a plain index with no ILM policy: ILM, even as a
// backstop, never deletes it. Its name is in TenantPattern, so every
// read of the tenant's events sees it, and storedElsewhere counts a held
// copy as kept: a retention record never counts a held event deleted.
//
// Copying costs one write per held event once per retention period of
// its backing index, where keeping whole backing indices would keep
// every event of a held time range's indices (most of a query hold's are
// not held) and their open shards.

// HeldIndex is the index where the lifecycle pass keeps the tenant's
// events that legal holds keep past their retention.
func (s *Store) HeldIndex(tenantID string) string { return s.prefix() + "-events-held-" + tenantID }

// heldPrefix starts the name of every held index.
func (s *Store) heldPrefix() string { return s.prefix() + "-events-held-" }

// holdsInForce returns, for each of the tenants that has one, the legal
// holds in force at now as its log records them: its hold records the
// service accepted (an acceptance tag that verifies), folded in log
// order. No row of the cluster can lift a hold. The folded holds are kept
// while the tenants' hold records stay as mark says (holdCache): a pass
// retiring many indices of one tenant reads them once.
func (s *Store) holdsInForce(ctx context.Context, tenants []string, mark holdMark, now time.Time) (map[string][]hold.Hold, error) {
	key := strings.Join(tenants, ",")
	s.mu.Lock()
	c := s.holdCache
	s.mu.Unlock()
	folded := c.folded
	if c.key != key || c.mark != mark {
		records, err := s.systemRecords(ctx, tenants, map[string]any{"term": map[string]any{"resource.type": hold.ResourceType}})
		if err != nil {
			return nil, err
		}
		folded = map[string][]hold.Hold{}
		for _, t := range tenants {
			if hs := hold.Fold(s.inLogOrder(records[t])); len(hs) > 0 {
				folded[t] = hs
			}
		}
		s.mu.Lock()
		s.holdCache = holdCache{key: key, mark: mark, folded: folded}
		s.mu.Unlock()
	}
	out := map[string][]hold.Hold{}
	for t, hs := range folded {
		if in := hold.InForce(hs, now); len(in) > 0 {
			out[t] = in
		}
	}
	return out, nil
}

// holdCache is the holds holdsInForce last folded.
type holdCache struct {
	key    string
	mark   holdMark
	folded map[string][]hold.Hold
}

// heldIn returns the ids of the tenant's events in idx that its holds
// keep: the matches of any hold's scope, by the list's own query
// (FilterClauses), and the holds' own records, in one search of the
// index. A scope this build cannot read keeps every event of the
// tenant: retention never deletes on doubt.
func (s *Store) heldIn(ctx context.Context, idx, tenant string, holds []hold.Hold) (map[string]bool, error) {
	should := make([]any, 0, len(holds)+1)
	for _, h := range holds {
		f, err := h.Scope.Filter(tenant)
		if err != nil {
			f = audit.Filter{TenantID: tenant}
		}
		should = append(should, map[string]any{"bool": map[string]any{"filter": FilterClauses(f)}})
	}
	should = append(should, map[string]any{"bool": map[string]any{"filter": []any{
		map[string]any{"term": map[string]any{"resource.type": hold.ResourceType}},
		map[string]any{"terms": map[string]any{"resource.id": hold.IDs(holds)}}}}})
	held := map[string]bool{}
	clauses := []any{map[string]any{"term": map[string]any{"tenantId": tenant}},
		map[string]any{"bool": map[string]any{"should": should, "minimum_should_match": 1}}}
	return held, s.collectIDs(ctx, idx, clauses, held)
}

// collectIDs adds the event ids of idx's documents matching clauses.
func (s *Store) collectIDs(ctx context.Context, idx string, clauses []any, into map[string]bool) error {
	body := map[string]any{"sort": []any{"_doc"}, "_source": []string{"id"},
		"query": map[string]any{"bool": map[string]any{"filter": clauses}}}
	return s.searchPages(ctx, "/"+idx+"/_search", body, 5000, func(hits []pageHit) error {
		for _, h := range hits {
			var src struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(h.Source, &src); err != nil {
				return audit.Wrap(audit.EUNAVAILABLE, err, "reading what legal holds keep in %s", idx)
			}
			into[src.ID] = true
		}
		return nil
	})
}

// holdMark is what holdsMoved compares: how many hold records the
// tenants have, and the newest one's time.
type holdMark struct {
	count  int64
	newest float64
}

// holdMarkOf reads the tenants' holdMark in one search (no record read).
func (s *Store) holdMarkOf(ctx context.Context, tenants []string) (holdMark, error) {
	var out struct {
		Hits struct {
			Total struct {
				Value int64 `json:"value"`
			} `json:"total"`
		} `json:"hits"`
		Aggregations struct {
			Newest struct {
				Value *float64 `json:"value"`
			} `json:"newest"`
		} `json:"aggregations"`
	}
	body := map[string]any{"size": 0, "track_total_hits": true,
		"query": map[string]any{"bool": map[string]any{"filter": []any{
			map[string]any{"terms": map[string]any{"tenantId": tenants}},
			map[string]any{"term": map[string]any{"resource.type": hold.ResourceType}}}}},
		"aggs": map[string]any{"newest": map[string]any{"max": map[string]any{"field": "@timestamp"}}}}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_search?ignore_unavailable=true&allow_no_indices=true&request_cache=false", body, &out); err != nil {
		return holdMark{}, err
	}
	m := holdMark{count: out.Hits.Total.Value}
	if v := out.Aggregations.Newest.Value; v != nil {
		m.newest = *v
	}
	return m, nil
}

// holdsMoved reports whether a hold record of the index's tenants was
// written (or removed) since the scan began: a hold placed, changed or
// released meanwhile. The pass checks right before it records and
// deletes, and reads the index again when they moved, so a hold
// acknowledged while it ran protects this run.
func (s *Store) holdsMoved(ctx context.Context, scan *retiring) (bool, error) {
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true&ignore_unavailable=true", nil, nil); err != nil {
		return false, err
	}
	again, err := s.holdMarkOf(ctx, scan.tenants)
	return again != scan.mark, err
}

// keepHeld copies the tenant's held events, with their tags, into its
// held index (created on first use), once: a copy there already is a
// duplicate.
func (s *Store) keepHeld(ctx context.Context, tenant string, events []accepted) error {
	idx := s.HeldIndex(tenant)
	if err := s.ensureHeldIndex(ctx, idx); err != nil {
		return err
	}
	targets := make([]target, len(events))
	plain := make([]audit.Event, len(events))
	for i := range events {
		targets[i], plain[i] = target{index: idx, docID: events[i].event.ID}, events[i].event
	}
	for start := 0; start < len(events); start += 2000 {
		end := min(start+2000, len(events))
		res, err := s.writeTo(ctx, events[start:end], plain[start:end], targets[start:end])
		if err != nil {
			return err
		}
		for i, r := range res {
			if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
				return audit.Errorf(audit.EUNAVAILABLE, "keeping held event %s in %s: %s %s", events[start+i].event.ID, idx, r.Status, r.Reason)
			}
		}
	}
	return nil
}

// ensureHeldIndex creates a held index with the events' mappings and no
// lifecycle policy, if it is not there.
func (s *Store) ensureHeldIndex(ctx context.Context, idx string) error {
	body, _ := json.Marshal(map[string]any{
		"settings": map[string]any{"number_of_shards": 1, "number_of_replicas": s.c.cfg.Replicas, "codec": "best_compression"},
		"mappings": mappings.Events(),
	})
	return s.createIndex(ctx, idx, body)
}

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
	scan, err := s.settledScan(ctx, idx, now)
	if err != nil {
		return 0, err
	}
	if len(scan.kept) > 0 {
		rep.Retention.Kept = append(rep.Retention.Kept, scan.kept...)
		return 0, nil
	}
	for _, evs := range scan.keep {
		rep.Retention.Held += int64(len(evs))
	}
	var ids []string
	for _, expired := range scan.expired {
		ids = append(ids, expired...)
	}
	if len(ids) == 0 {
		if len(scan.keep) == 0 && len(scan.survivors) == 0 && len(scan.holds) == 0 {
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

// heldPass is the lifecycle pass over the held indices (retireHeld).
func (s *Store) heldPass(ctx context.Context, now time.Time, rep *LifecycleReport) []error {
	names, err := s.heldIndices(ctx)
	if err != nil {
		return []error{fmt.Errorf("listing the held indices: %w", err)}
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
