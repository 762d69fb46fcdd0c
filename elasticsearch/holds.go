package elasticsearch

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
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
// not held) and their open shards. What keeps the pass within twice its
// cost without holds (BENCHMARKS.md): the held ids of an index come from
// doc values in one search (collectIDs), and the pass over a held index
// reads only the events no hold keeps any more (notHeld), counting the
// rest (heldCount) instead of reading them again each pass.

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

// heldByTenant returns, by tenant, the ids of its events in idx that its
// holds keep (heldClause), in one search of the index per tenant.
func (s *Store) heldByTenant(ctx context.Context, idx string, holds map[string][]hold.Hold) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, tenant := range slices.Sorted(maps.Keys(holds)) {
		held := map[string]bool{}
		if err := s.collectIDs(ctx, idx, []any{heldClause(tenant, holds[tenant])}, held); err != nil {
			return nil, err
		}
		out[tenant] = held
	}
	return out, nil
}

// heldClause matches the tenant's events its holds keep: the matches of
// any hold's scope, by the list's own query (FilterClauses), and the
// holds' own records. A scope this build cannot read keeps every event
// of the tenant: retention never deletes on doubt.
func heldClause(tenant string, holds []hold.Hold) map[string]any {
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
	return map[string]any{"bool": map[string]any{
		"filter": []any{map[string]any{"term": map[string]any{"tenantId": tenant}}},
		"should": should, "minimum_should_match": 1}}
}

// collectIDs adds the event ids of idx's documents matching clauses. It
// reads them from doc values, not from the stored documents: the matches
// are scattered over the index, and reading a scattered document's
// source decompresses a whole block of best_compression's stored fields
// (about 0.25 ms a document, 50 times the search itself).
func (s *Store) collectIDs(ctx context.Context, idx string, clauses []any, into map[string]bool) error {
	body := map[string]any{"sort": []any{"_doc"}, "_source": false, "stored_fields": "_none_", "docvalue_fields": []string{"id"},
		"query": map[string]any{"bool": map[string]any{"filter": clauses}}}
	return s.searchPages(ctx, "/"+idx+"/_search", body, 5000, func(hits []pageHit) error {
		for _, h := range hits {
			var fields struct {
				ID []string `json:"id"`
			}
			if err := json.Unmarshal(h.Fields, &fields); err != nil || len(fields.ID) != 1 {
				return audit.Errorf(audit.EUNAVAILABLE, "reading what legal holds keep in %s: a match with no single id (%v)", idx, err)
			}
			into[fields.ID[0]] = true
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
	plain := plainEvents(events)
	for i := range events {
		targets[i] = target{index: idx, docID: events[i].event.ID}
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
