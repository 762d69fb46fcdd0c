package elasticsearch

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
)

// retire deletes a backing index whose events have all expired under its
// stream's plan, as the tenants' logs authorize it (issue 53), and
// reports whether it did and whether it wrote retention records:
//
//   - each event in it is read once: one whose acceptance tag does not
//     verify (edited or planted behind the service) keeps the whole
//     index, named (Kept): retention never destroys evidence;
//   - each tenant's cut-off is that of the plan its log records
//     (loggedPlans): an event within it (the tenant's plan keeps longer
//     than the stream's, or its events landed in another plan's stream)
//     that is stored nowhere else is copied, with its tag, to where the
//     tenant writes now (Rescued) before the index goes;
//   - each tenant's record (retention.Deletion) counts only the
//     events that go and are stored nowhere else (a copy left behind by
//     a plan change is no deletion), names the logged plan and its
//     cut-off, and carries forward the leaves the retention records that
//     go with the index excused.
//
// The records are written and queued for sealing before the index is
// deleted, so no deletion is without its record (a pass that fails after
// them writes the same ones again: their ids derive from what they
// record). Nothing is recorded when this store keeps no log.
func (s *Store) retire(ctx context.Context, idx string, now time.Time, rep *LifecycleReport) (deleted, recorded bool, err error) {
	scan, err := s.settledScan(ctx, idx, now, false)
	if err != nil {
		return false, false, err
	}
	if len(scan.kept) > 0 {
		rep.Retention.Kept = append(rep.Retention.Kept, scan.kept...)
		return false, false, nil
	}
	for _, tenant := range slices.Sorted(maps.Keys(scan.survivors)) {
		n, err := s.rescue(ctx, tenant, idx, scan.survivors[tenant])
		rep.Rescued += n
		if err != nil {
			return false, false, err
		}
	}
	for _, tenant := range slices.Sorted(maps.Keys(scan.keep)) {
		if err := s.keepHeld(ctx, tenant, scan.keep[tenant]); err != nil {
			return false, false, fmt.Errorf("keeping what legal holds keep out of %s before it goes: %w", idx, err)
		}
	}
	if recorded, err = s.recordDeletions(ctx, idx, scan, now); err != nil {
		return false, false, err
	}
	return true, recorded, s.deleteIndex(ctx, idx)
}

// settledScan is scanRetiring of idx, read again while the holds in force
// of its tenants moved during the read (holdsMoved), at most three times.
func (s *Store) settledScan(ctx context.Context, idx string, now time.Time, held bool) (*retiring, error) {
	for range 3 {
		scan, err := s.scanRetiring(ctx, idx, now, held)
		if err != nil {
			return nil, err
		}
		if s.afterScan != nil {
			s.afterScan(idx)
		}
		moved, err := s.holdsMoved(ctx, scan)
		if err != nil || !moved {
			return scan, err
		}
	}
	return nil, audit.Errorf(audit.EUNAVAILABLE, "the legal holds of %s's tenants changed during each of three reads; the index is left to the next pass", idx)
}

// recordDeletions writes the retention records of what deleting idx (or
// the events scan found expired there) deletes, each naming the tenant's
// holds in force; it reports whether it wrote any.
func (s *Store) recordDeletions(ctx context.Context, idx string, scan *retiring, now time.Time) (bool, error) {
	if !s.cfg.Log {
		return false, nil
	}
	var records []audit.Event
	for _, tenant := range slices.Sorted(maps.Keys(scan.expired)) {
		d, err := s.deletion(ctx, tenant, idx, scan.plans[tenant], now, scan.expired[tenant], scan.inherited[tenant])
		if err != nil {
			return false, err
		}
		d.Holds, d.Source = hold.IDs(scan.holds[tenant]), idx
		if d.Deleted > 0 {
			records = append(records, d.Records(now)...)
		}
	}
	if err := s.writeRecords(ctx, idx, records); err != nil || len(records) == 0 {
		return false, err
	}
	// The rest of the pass reads them: a retention record may be the last
	// one that carries its tenant's plan (loggedPlans).
	return true, s.c.DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true&ignore_unavailable=true", nil, nil)
}

// retiring is what scanRetiring read of an index: the tenants' logged
// plans and legal holds in force, the events to delete (ids by tenant)
// and the leaves the retention records among them excused, the events
// their tenants' plans still keep (survivors), the expired ones holds
// keep (keep), and the events that are not as accepted (kept).
type retiring struct {
	tenants   []string
	plans     map[string]audit.Plan
	mark      holdMark                   // the hold records when the scan began
	holds     map[string][]hold.Hold     // in force, by tenant
	held      map[string]map[string]bool // ids holds keep, by tenant
	keep      map[string][]accepted      // expired events holds keep
	expired   map[string][]string
	inherited map[string][]retention.LeafRange
	survivors map[string][]accepted
	kept      []retention.Kept
}

// scanRetiring reads every event of idx once, in pages; of a held index
// (held), only the events no hold in force keeps: only those may go, and
// the index stays.
func (s *Store) scanRetiring(ctx context.Context, idx string, now time.Time, held bool) (*retiring, error) {
	tenants, err := s.tenantsIn(ctx, idx)
	if err != nil {
		return nil, err
	}
	r := &retiring{tenants: tenants, expired: map[string][]string{}, inherited: map[string][]retention.LeafRange{},
		survivors: map[string][]accepted{}, held: map[string]map[string]bool{}, keep: map[string][]accepted{}}
	if r.plans, err = s.loggedPlans(ctx, tenants); err != nil {
		return nil, err
	}
	if r.mark, err = s.holdMarkOf(ctx, tenants); err != nil {
		return nil, err
	}
	if r.mark.count == 0 {
		r.holds = map[string][]hold.Hold{} // no hold record: nothing to read
	} else if r.holds, err = s.holdsInForce(ctx, tenants, r.mark, now); err != nil {
		return nil, err
	}
	query := map[string]any{"match_all": map[string]any{}}
	if held {
		query = notHeld(r.holds)
	} else if r.held, err = s.heldByTenant(ctx, idx, r.holds); err != nil {
		return nil, err
	}
	err = s.searchPages(ctx, "/"+idx+"/_search", map[string]any{"sort": []any{"_doc"}, "query": query}, 2000, func(hits []pageHit) error {
		for _, h := range hits {
			r.take(s, h.ID, h.Source, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// take classifies one stored document of the index.
func (r *retiring) take(s *Store, docID string, src []byte, now time.Time) {
	d, err := decodeStoredDoc(src)
	if err != nil {
		r.kept = append(r.kept, retention.Kept{EventID: docID, Reason: "the stored document is no event: " + err.Error()})
		return
	}
	e := d.event()
	// A document stored before acceptance tags carries none: its leaf
	// judges it (log verify); one with a tag must be as accepted.
	if d.Accept != nil {
		if err := s.cfg.Accept.Authentic(&e, d.Accept, nil); err != nil {
			r.kept = append(r.kept, retention.Kept{TenantID: e.TenantID, EventID: e.ID, Reason: audit.ErrorMessage(err)})
			return
		}
	}
	plan, ok := r.plans[e.TenantID]
	if !ok {
		plan = s.cfg.DefaultPlan
	}
	if !e.Timestamp.Before(audit.Cutoff(plan, now)) {
		r.survivors[e.TenantID] = append(r.survivors[e.TenantID], accepted{event: &e, digest: vlog.EventDigest(&e), tag: d.Accept})
		return
	}
	if r.held[e.TenantID][e.ID] {
		r.keep[e.TenantID] = append(r.keep[e.TenantID], accepted{event: &e, digest: vlog.EventDigest(&e), tag: d.Accept})
		return
	}
	r.expired[e.TenantID] = append(r.expired[e.TenantID], e.ID)
	if ranges, ok := retention.Leaves(e); ok {
		r.inherited[e.TenantID] = append(r.inherited[e.TenantID], ranges...)
	}
}

// tenantsIn lists the tenants with events in idx.
func (s *Store) tenantsIn(ctx context.Context, idx string) ([]string, error) {
	body := map[string]any{"size": 0, "aggs": map[string]any{"t": map[string]any{"terms": map[string]any{"field": "tenantId", "size": 65536}}}}
	var res struct {
		Aggregations struct {
			T struct {
				Buckets []struct {
					Key string `json:"key"`
				} `json:"buckets"`
			} `json:"t"`
		} `json:"aggregations"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+idx+"/_search", body, &res); err != nil {
		return nil, err
	}
	out := make([]string, len(res.Aggregations.T.Buckets))
	for i, b := range res.Aggregations.T.Buckets {
		out[i] = b.Key
	}
	return out, nil
}

// storedElsewhere returns which of the tenant's ids are stored in an
// index the tenant's events are read from, other than idx.
func (s *Store) storedElsewhere(ctx context.Context, tenant, idx string, ids []string) (map[string]bool, error) {
	pattern, err := s.readPattern(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for start := 0; start < len(ids); start += 5000 {
		part := ids[start:min(start+5000, len(ids))]
		body := map[string]any{"size": 2 * len(part), "_source": []string{"id"}, "track_total_hits": false, "query": map[string]any{"bool": map[string]any{"filter": []any{
			map[string]any{"term": map[string]any{"tenantId": tenant}}, map[string]any{"terms": map[string]any{"id": part}}}}}}
		var res struct {
			Hits struct {
				Hits []struct {
					Index  string `json:"_index"`
					Source struct {
						ID string `json:"id"`
					} `json:"_source"`
				} `json:"hits"`
			} `json:"hits"`
		}
		path := "/" + pattern + ",-" + idx + "/_search?ignore_unavailable=true&allow_no_indices=true"
		if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &res); err != nil {
			return nil, err
		}
		for _, h := range res.Hits.Hits {
			if h.Index != idx {
				out[h.Source.ID] = true
			}
		}
	}
	return out, nil
}

// rescue copies, with their tags, the tenant's events of idx that its
// logged plan still keeps and that are stored nowhere else, to where the
// tenant writes now; it returns how many it copied.
func (s *Store) rescue(ctx context.Context, tenant, idx string, events []accepted) (int, error) {
	ids := make([]string, len(events))
	for i := range events {
		ids[i] = events[i].event.ID
	}
	elsewhere, err := s.storedElsewhere(ctx, tenant, idx, ids)
	if err != nil {
		return 0, err
	}
	n, err := s.writeAbsent(ctx, events, func(id string) bool { return elsewhere[id] })
	if err != nil {
		return n, fmt.Errorf("copying out of %s before it goes: %w", idx, err)
	}
	return n, nil
}

// deletion is what deleting idx deletes of the tenant: its expired
// events there that are stored nowhere else, with the leaves that held
// them and those the retention records among them excused.
func (s *Store) deletion(ctx context.Context, tenant, idx string, plan audit.Plan, now time.Time, ids []string, inherited []retention.LeafRange) (retention.Deletion, error) {
	if plan == "" {
		plan = s.cfg.DefaultPlan
	}
	d := retention.Deletion{TenantID: tenant, Plan: plan, Before: audit.Cutoff(plan, now)}
	elsewhere, err := s.storedElsewhere(ctx, tenant, idx, ids)
	if err != nil {
		return d, err
	}
	var gone []string
	for _, id := range ids {
		if !elsewhere[id] {
			gone = append(gone, id)
		}
	}
	var leaves []int64
	for i := 0; i < len(gone); i += 10000 {
		found, err := s.bundled(ctx, tenant, gone[i:min(i+10000, len(gone))])
		if err != nil {
			return d, err
		}
		for _, l := range found {
			leaves = append(leaves, l)
		}
	}
	slices.Sort(leaves)
	d.Deleted = int64(len(gone))
	d.Leaves = retention.MergeRanges(append(retention.LeafRanges(leaves), inherited...))
	d.Unsealed = d.Deleted - int64(len(leaves))
	return d, nil
}

// writeRecords writes the retention records of idx's deletion.
func (s *Store) writeRecords(ctx context.Context, idx string, records []audit.Event) error {
	if len(records) == 0 {
		return nil
	}
	res, err := s.WriteEvents(ctx, records)
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
			return audit.Errorf(audit.EUNAVAILABLE, "writing a retention record of %s: %s %s", idx, r.Status, r.Reason)
		}
	}
	return nil
}
