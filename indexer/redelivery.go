package indexer

import (
	"context"
	"slices"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/backoff"
)

// settleRedelivered returns the indices of d's events still to write,
// in ascending order.
// When the store needs it (audit.StoredLookup: Elasticsearch, whose ids
// are unique per backing index only), the events marked as a possible
// redelivery are first looked up across all of their tenant's data: one
// already stored is settled as a duplicate (or a conflict, dead-lettered)
// and not written again, so a redelivery after a rollover is not stored
// twice. A failed lookup is retried like a failed write; it returns an
// error only when ctx ends. Each failed lookup counts its events as
// retried, as a failed write does.
func (ix *Indexer) settleRedelivered(ctx context.Context, d *decoded) ([]int, error) {
	lookup, ok := ix.deps.Store.(audit.StoredLookup)
	byTenant := map[string][]int{}
	pending := make([]int, 0, len(d.events))
	for i := range d.events {
		if ok && d.suspect != nil && d.suspect[i] {
			byTenant[d.events[i].TenantID] = append(byTenant[d.events[i].TenantID], i)
			continue
		}
		pending = append(pending, i)
	}
	bo := ix.newBackoff()
	for tenant, idx := range byTenant {
		ids := make([]string, len(idx))
		for j, i := range idx {
			ids[j] = d.events[i].ID
		}
		var stored map[string]audit.Event
		retried := func(err error) {
			// A lookup retried is a write retried: the events wait on the
			// store all the same.
			ix.countRetried(len(idx))
			ix.log.Warn("looking up redelivered events failed; retrying", "events", len(idx), "err", err)
		}
		err := backoff.Retry(ctx, bo, retried, func() (err error) {
			stored, err = lookup.StoredEvents(ctx, tenant, ids)
			return err
		})
		if err != nil {
			return nil, err
		}
		ix.m.redeliveryChecked.Add(float64(len(idx)))
		for _, i := range idx {
			prev, found := stored[d.events[i].ID]
			if !found {
				pending = append(pending, i)
				continue
			}
			switch r := audit.Settle(&d.events[i], &prev); r.Status {
			case audit.WriteDuplicate:
				ix.m.duplicate.Inc()
				ix.stats.Duplicates.Add(1)
			default:
				ix.m.conflict.Inc()
				d.dead = append(d.dead, deadLetter{msg: d.source(i), code: CodeConflict, reason: r.Reason})
			}
		}
	}
	// In the batch's order: the suspects were appended tenant by tenant,
	// and pending's j-th write result is taken for the message of
	// pending[j] (a full-length pending is written as events stands).
	slices.Sort(pending)
	return pending, nil
}
