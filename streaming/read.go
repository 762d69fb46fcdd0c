package streaming

import (
	"context"
	"github.com/auditlog/auditlog/audit/search"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// read builds the batch of st from leaf index from, ending before to (0:
// as far as a batch goes): the next leaves of the tenant's log (none past
// its last checkpoint), and those of their events the
// stream's filter keeps, asked of the store (audit.Filter.EventIDs) so
// that the filter means what it means in the API. An event retention
// deleted is a leaf without an event: the range covers it, no entry
// carries it.
func (s *Streamer) read(ctx context.Context, st *stream.Stream, from, to uint64) (Batch, error) {
	b := Batch{TenantID: st.TenantID, StreamID: st.ID, Format: st.Format, From: from, To: from}
	n := min(max(s.BatchSize, 1), audit.MaxEventIDs)
	if s.gathers(st.Destination.Kind) {
		n = audit.MaxEventIDs // an object per batch: as few objects as a batch allows
	}
	if to > from {
		n = min(n, int(to-from))
	}
	leaves, err := s.Log.Leaves(ctx, st.TenantID, int64(from), n)
	if err != nil || len(leaves) == 0 {
		return b, err
	}
	key, err := s.maskKey(st)
	if err != nil {
		return b, err
	}
	ids := make([]string, len(leaves))
	for i, l := range leaves {
		ids[i] = l.EventID
	}
	found, err := s.events(ctx, st, ids)
	if err != nil {
		return b, err
	}
	for _, l := range leaves {
		e, ok := found[audit.NormalizeID(l.EventID)]
		if !ok {
			continue
		}
		raw, err := encode(st, key, e, uint64(l.Index))
		if err != nil {
			return b, err
		}
		b.Events = append(b.Events, Entry{LeafIndex: uint64(l.Index), Event: raw})
	}
	b.To = uint64(leaves[len(leaves)-1].Index) + 1
	return b, nil
}

// events returns, by id, the events among ids that the stream's filter
// keeps, reading every page (a page may stop at its byte budget).
func (s *Streamer) events(ctx context.Context, st *stream.Stream, ids []string) (map[string]audit.Event, error) {
	text, terms, err := search.Parse(st.Filter)
	if err != nil {
		return nil, err
	}
	f := audit.Filter{TenantID: st.TenantID, EventIDs: ids, Q: text, Terms: terms}
	f.Normalize()
	out := make(map[string]audit.Event, len(ids))
	// Fresh: a sealed event is stored, but a store that shows writes
	// after a refresh (Elasticsearch) may not show it yet, and a leaf
	// whose event the search misses is taken as one the filter left out.
	q := audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: len(ids), Page: 1, NoTotal: true, Fresh: true}
	for {
		res, err := s.Events.SearchEvents(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, e := range res.Events {
			if e.TenantID == st.TenantID { // the store's promise, checked where it matters most
				out[audit.NormalizeID(e.ID)] = e
			}
		}
		if !res.HasMore || res.Next == nil {
			return out, nil
		}
		q.After = res.Next
	}
}
