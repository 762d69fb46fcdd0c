package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"golang.org/x/mod/sumdb/tlog"
	"golang.org/x/sync/errgroup"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/vlog"
)

// Sealing order on Elasticsearch. A data stream has no insertion order,
// so the writers keep one: after each acknowledged _bulk (and for each
// redelivered event found stored), WriteEvents adds one ticket to the
// sealing queue, listing where each stored event is (its backing index,
// document id and routing). Only then is the batch acknowledged (offsets
// committed, HTTP answered), so an event stored but not ticketed (a
// crash in between) is written again and answered as a duplicate, which
// is ticketed. A round takes the oldest tickets, reads their events in
// real time, leaves out those already in their tenant's log, and commits
// tenant by tenant; the tickets go once every tenant committed. Tickets
// may name an event twice (a redelivery, a copy between streams): the
// check against the log makes each stored event one leaf.

// Acceptor is the acceptance key the store tags with (nil: none).
func (s *Store) Acceptor() *vlog.Acceptor { return s.cfg.Accept }

// SealQueueIndex is the sealing queue.
func (s *Store) SealQueueIndex() string { return s.prefix() + "-seal-queue" }

// ticketRef is where one stored event is, and, for one this write
// created, its digest and acceptance tag (the event it sent is the event
// stored: its _source, byte for byte), so the sealer need not read it
// back. The JSON names are those of tickets written before the packed
// form (ticketpack.go), which also held the leaf hash.
type ticketRef struct {
	Tenant  string     `json:"t"`
	ID      string     `json:"id"`
	DocID   string     `json:"d"`
	Index   string     `json:"ix,omitempty"` // "" when unknown: found by a search
	Routing string     `json:"r,omitempty"`
	Hash    *tlog.Hash `json:"h,omitempty"`  // only in tickets written before the packed form
	Digest  []byte     `json:"dg,omitempty"` // the event's digest (none: read the event back, or a leaf hash of a version before the entry format, a v1 leaf)
	Tag     []byte     `json:"ac,omitempty"` // the event's acceptance tag, with Digest (vlog.Acceptor)
}

// ticket is a sealing queue's document as read: its refs packed
// (ticketpack.go) or, written before that, an array of ticketRef.
type ticket struct {
	Kind string          `json:"kind"`
	At   int64           `json:"at"`
	N    int             `json:"n"` // the number of refs, indexed: tickets are chosen without reading their refs
	Refs json.RawMessage `json:"refs"`
}

// enqueue adds a ticket for refs (nothing when sealing is off or refs is
// empty). Errors: EUNAVAILABLE, and the batch must not be acknowledged.
func (s *Store) enqueue(ctx context.Context, refs []ticketRef) error {
	if !s.cfg.Log || len(refs) == 0 {
		return nil
	}
	body := appendTicket(make([]byte, 0, 64+200*len(refs)), s.cfg.Now().UnixMilli(), refs)
	res, err := s.c.Do(ctx, http.MethodPost, "/"+s.SealQueueIndex()+"/_doc", body)
	if err != nil {
		return err
	}
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		return audit.Wrap(audit.EUNAVAILABLE, StatusError(http.MethodPost, "the sealing queue", res), "queueing stored events for sealing")
	}
	return nil
}

// SealPosition implements vlog.Store: the queue is the position, so
// there is none to read.
func (s *Store) SealPosition(context.Context) (string, string, error) { return "", "", nil }

// roundToken is what PendingEvents hands to CommitSeal through the
// position: the tickets the round took, and each tenant's state as the
// round checked its events against it.
type roundToken struct {
	Tickets []string             `json:"tickets"`
	States  map[string]baseState `json:"states"`
}

type baseState struct {
	Rev  string    `json:"rev"`
	Size int64     `json:"size"`
	Root tlog.Hash `json:"root"`
}

// PendingLeaves implements vlog.Store: the leaves of the events of
// the oldest tickets (at least one ticket, then up to limit events) that
// are not in their tenant's log yet. Tickets whose events are all sealed
// already are deleted on the way.
func (s *Store) PendingLeaves(ctx context.Context, _ string, limit int) ([]vlog.PendingLeaf, string, error) {
	for range 8 {
		ids, refs, bad, err := s.takeTickets(ctx, limit)
		if err != nil || len(ids) == 0 {
			return nil, "", err
		}
		events, states, err := s.unsealed(ctx, refs)
		if err != nil {
			return nil, "", err
		}
		events = append(events, bad...)
		if len(events) > 0 {
			return events, string(mustJSON(roundToken{Tickets: ids, States: states})), nil
		}
		if err := s.deleteTickets(ctx, ids); err != nil {
			return nil, "", err
		}
	}
	return nil, "", nil
}

// takeTickets reads the oldest tickets: their ids and their refs. It
// chooses them by their sizes alone (doc values), then reads only those:
// a long queue is not read whole every round. A ticket that does not read
// (no writer of this service wrote it so: forged or damaged in the
// cluster) is an unreadable pending leaf named after it, which the
// sealer names unaccepted; it goes with the round's tickets and stops
// nothing behind it.
func (s *Store) takeTickets(ctx context.Context, limit int) ([]string, []ticketRef, []vlog.PendingLeaf, error) {
	q := "/" + s.SealQueueIndex()
	if err := s.c.DoJSON(ctx, http.MethodPost, q+"/_refresh", nil, nil); err != nil {
		return nil, nil, nil, err
	}
	body := map[string]any{"size": 200, "track_total_hits": false, "_source": false, "docvalue_fields": []string{"n"},
		"sort": []any{map[string]any{"at": "asc"}}}
	var res struct {
		Hits struct {
			Hits []struct {
				ID     string `json:"_id"`
				Fields struct {
					N []int `json:"n"`
				} `json:"fields"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, q+"/_search", body, &res); err != nil {
		return nil, nil, nil, err
	}
	var ids []string
	total := 0
	for _, h := range res.Hits.Hits {
		n := 0
		if len(h.Fields.N) > 0 {
			n = h.Fields.N[0]
		}
		if len(ids) > 0 && total+n > limit {
			break
		}
		ids, total = append(ids, h.ID), total+n
	}
	if len(ids) == 0 {
		return nil, nil, nil, nil
	}
	docs, err := mgetDocs[json.RawMessage](ctx, s, s.SealQueueIndex(), ids)
	if err != nil {
		return nil, nil, nil, err
	}
	var refs []ticketRef
	var bad []vlog.PendingLeaf
	for i, doc := range docs {
		if doc == nil {
			continue
		}
		var t ticket
		err := json.Unmarshal(*doc, &t)
		var got []ticketRef
		if err == nil {
			got, err = ticketRefs(t.Refs)
		}
		if err == nil && len(got) != t.N {
			err = fmt.Errorf("%d refs where it says %d", len(got), t.N)
		}
		if err != nil {
			bad = append(bad, vlog.PendingLeaf{EventID: "sealing ticket " + ids[i], Unreadable: "the sealing queue's ticket does not read: " + err.Error()})
			continue
		}
		refs = append(refs, got...)
	}
	return ids, refs, bad, nil
}

// unsealed returns the leaves of the events of refs not yet in their
// tenant's log, once each, in the tickets' order, and each tenant's state
// as checked. It reads back only the events whose ticket holds no leaf
// hash (duplicates, redeliveries found stored).
func (s *Store) unsealed(ctx context.Context, refs []ticketRef) ([]vlog.PendingLeaf, map[string]baseState, error) {
	byTenant := map[string][]string{}
	for _, r := range refs {
		byTenant[r.Tenant] = append(byTenant[r.Tenant], r.ID)
	}
	states := map[string]baseState{}
	sealed := map[string]bool{}
	var mu sync.Mutex
	err := eachTenant(ctx, byTenant, func(ctx context.Context, tenant string, ids []string) error {
		st, rev, err := s.readState(ctx, tenant, true)
		if err != nil {
			return err
		}
		found, err := s.bundled(ctx, tenant, ids)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		states[tenant] = baseState{Rev: rev, Size: st.Size, Root: st.Root}
		for _, l := range st.Leaves {
			sealed[tenant+"/"+l.ID] = true
		}
		for id := range found {
			sealed[tenant+"/"+id] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var toRead []ticketRef
	pending := map[string]vlog.PendingLeaf{}
	for _, r := range refs {
		k := r.Tenant + "/" + r.ID
		hashed := r.Hash != nil || len(r.Digest) == 32
		switch {
		case !sealed[k] && !hashed:
			toRead = append(toRead, r)
		case hashed:
			pending[k] = ticketLeaf(r)
		}
	}
	read, err := s.readRefs(ctx, toRead)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range read {
		pending[p.TenantID+"/"+p.EventID] = p
	}
	var out []vlog.PendingLeaf
	for _, r := range refs {
		k := r.Tenant + "/" + r.ID
		p, stored := pending[k]
		if sealed[k] || !stored {
			continue // sealed already, or left the store since (retention)
		}
		sealed[k] = true
		out = append(out, p)
	}
	return out, states, nil
}

// ticketLeaf is the pending leaf of a ref that carries the event's digest
// (a packed one: its leaf hash is that of the digest's entry) or a leaf
// hash (written before the packed form). The digest is what the writer
// accepted: the tag is checked against it (a ticket forged behind the
// service has no valid tag), and a document edited since is altered
// against its leaf.
func ticketLeaf(r ticketRef) vlog.PendingLeaf {
	p := vlog.PendingLeaf{TenantID: r.Tenant, EventID: r.ID, Tag: r.Tag}
	if len(r.Digest) != 32 {
		p.Hash = *r.Hash // a ticket queued before the entry format: a v1 leaf, unaccepted
		return p
	}
	p.Digest = (*[32]byte)(r.Digest)
	p.Hash = vlog.EntryHash(r.ID, *p.Digest)
	if r.Hash != nil && *r.Hash != p.Hash {
		p.Unreadable = "the ticket's leaf hash is not that of its digest"
	}
	return p
}

// readRefs reads the ticketed events in real time where the ticket knows
// their backing index, else (or when an event moved since, to another
// stream) by a search of the tenant's events, and returns their pending
// leaves with the tags their documents hold (a document that does not
// decode is an unreadable leaf, named by the sealer). One found nowhere
// left the store since (retention) and has nothing to seal.
func (s *Store) readRefs(ctx context.Context, refs []ticketRef) ([]vlog.PendingLeaf, error) {
	type ref struct {
		Index   string `json:"_index"`
		ID      string `json:"_id"`
		Routing string `json:"routing,omitempty"`
	}
	var docs []ref
	var at []int
	for i, r := range refs {
		if r.Index != "" {
			docs, at = append(docs, ref{Index: r.Index, ID: r.DocID, Routing: r.Routing}), append(at, i)
		}
	}
	sources := make([]json.RawMessage, len(refs))
	if len(docs) > 0 {
		var res struct {
			Docs []struct {
				Found  bool            `json:"found"`
				Source json.RawMessage `json:"_source"`
			} `json:"docs"`
		}
		if err := s.c.DoJSON(ctx, http.MethodPost, "/_mget?realtime=true", map[string]any{"docs": docs}, &res); err != nil {
			return nil, err
		}
		for j, d := range res.Docs {
			if d.Found && j < len(at) {
				sources[at[j]] = d.Source
			}
		}
	}
	var out []vlog.PendingLeaf
	for i, src := range sources {
		if src == nil {
			found, err := s.eventSource(ctx, refs[i].Tenant, refs[i].ID)
			if audit.ErrorCode(err) == audit.ENOTFOUND {
				continue
			}
			if err != nil {
				return nil, err
			}
			src = found
		}
		d, err := decodeStoredDoc(src)
		row := vlog.CheckedRow(refs[i].ID, refs[i].Tenant, d.event(), err)
		if row.Err != nil {
			out = append(out, vlog.PendingLeaf{TenantID: refs[i].Tenant, EventID: refs[i].ID, Unreadable: audit.ErrorMessage(row.Err)})
			continue
		}
		out = append(out, vlog.NewPendingLeaf(&row.Event, d.Accept))
	}
	return out, nil
}

// CommitSeal implements vlog.Store: each tenant's new state by
// compare-and-set against the state its events were checked against,
// then its tiles and bundles, then, when every tenant committed, the
// round's tickets are deleted. Errors: ECONFLICT when a tenant's state
// changed since (another sealer committed; the tenants that did commit
// stay committed, and the next round leaves their events out),
// EUNAVAILABLE.
func (s *Store) CommitSeal(ctx context.Context, b vlog.SealBatch) error {
	var tok roundToken
	if err := json.Unmarshal([]byte(b.Position), &tok); err != nil {
		return audit.Errorf(audit.EINVALID, "elasticsearch: seal position %q is no round of this store", b.Position)
	}
	for tenant := range b.States {
		if _, ok := tok.States[tenant]; !ok {
			return audit.Errorf(audit.EINVALID, "elasticsearch: the round took no state of %s", tenant)
		}
	}
	var mu sync.Mutex
	var conflicts []string
	var tiles bytes.Buffer // every committed tenant's tiles and bundles, in one bulk
	written := map[string]roundWritten{}
	err := eachTenant(ctx, b.States, func(ctx context.Context, tenant string, ls vlog.State) error {
		st, conflict, err := s.commitState(ctx, tenant, ls, tok.States[tenant], b.Leaves[tenant])
		if err != nil {
			return err
		}
		if conflict {
			mu.Lock()
			defer mu.Unlock()
			conflicts = append(conflicts, tenant)
			return nil
		}
		var buf bytes.Buffer
		last, err := s.appendCommitted(ctx, &buf, st)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		tiles.Write(buf.Bytes())
		written[tenant] = roundWritten{tree: tlog.Tree{N: st.Size, Hash: st.Root}, bundle: last}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(conflicts)
	if tiles.Len() > 0 {
		if err := s.bulkVersioned(ctx, tiles.Bytes()); err != nil {
			return err // committed all the same: the next read materializes
		}
	}
	for tenant, w := range written {
		s.logs.sawTree(tenant, w.tree) // committed and materialized
		s.logs.savedBundle(tenant, w.bundle)
	}
	if len(conflicts) > 0 {
		return audit.Errorf(audit.ECONFLICT, "the logs of %s changed since the round read them: another sealer committed", strings.Join(conflicts, ", "))
	}
	return s.deleteTickets(ctx, tok.Tickets)
}

// roundWritten is what a round wrote for a tenant, kept once written:
// its tree and its last id bundle.
type roundWritten struct {
	tree   tlog.Tree
	bundle bundleDoc
}

// commitState writes tenant's state ls, which a round built from base
// by appending leaves, by compare-and-set: conflict when another sealer
// committed since (the round built on a later state than its events
// were checked against, or the stored one moved). Errors: EUNAVAILABLE.
func (s *Store) commitState(ctx context.Context, tenant string, ls vlog.State, base baseState, leaves []vlog.Leaf) (st *logState, conflict bool, err error) {
	if base.Size+int64(len(leaves)) != ls.Size {
		return nil, true, nil
	}
	st = &logState{Kind: "state", TenantID: tenant, Size: ls.Size, Root: ls.Root, Checkpoint: ls.Checkpoint, SealedAt: ls.SealedAt,
		Base: base.Size, BaseRoot: base.Root, Leaves: make([]leafBody, len(leaves))}
	for i, l := range leaves {
		st.Leaves[i] = leafBody{ID: l.EventID, Hash: l.Hash, Digest: digestBytes(l.Digest)}
	}
	rev, err := s.putState(ctx, *st, base.Rev)
	if audit.ErrorCode(err) == audit.ECONFLICT {
		return nil, true, nil
	} else if err != nil {
		return nil, false, err
	}
	s.logs.savedState(tenant, rev, *st)
	return st, false, nil
}

// sealParallel is how many tenants a round reads or commits at once: a
// round's requests are small and one after another they left both the
// sealer and the cluster mostly waiting (ten tenants: forty requests a
// round in turn).
const sealParallel = 4

// eachTenant runs fn for each tenant of m, sealParallel at a time, and
// returns the first error (the others are cancelled).
func eachTenant[V any](ctx context.Context, m map[string]V, fn func(ctx context.Context, tenant string, v V) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(sealParallel)
	for tenant, v := range m {
		g.Go(func() error { return fn(ctx, tenant, v) })
	}
	return g.Wait()
}

// putState writes st if the stored state is still at rev ("": none yet),
// without a refresh (states are read by id, in real time), and returns
// its new revision. Errors: ECONFLICT when it is not.
func (s *Store) putState(ctx context.Context, st logState, rev string) (string, error) {
	what := "the log state of " + st.TenantID
	if rev == "" {
		rev, created, err := s.createDoc(ctx, s.TlogIndex(), stateID(st.TenantID), what, st, false)
		if err == nil && !created {
			err = audit.Errorf(audit.ECONFLICT, "%s was created meanwhile", what)
		}
		return rev, err
	}
	return s.casPut(ctx, s.TlogIndex(), stateID(st.TenantID), rev, what, st, false, nil)
}

// deleteTickets removes sealed tickets (one already gone is fine).
func (s *Store) deleteTickets(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, id := range ids {
		buf.Write(mustJSON(map[string]any{"delete": map[string]any{"_index": s.SealQueueIndex(), "_id": id}}))
		buf.WriteByte('\n')
	}
	res, err := s.c.Do(ctx, http.MethodPost, "/_bulk?filter_path=errors", buf.Bytes())
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK || bytes.Contains(res.Body, []byte(`"errors":true`)) {
		return audit.Wrap(audit.EUNAVAILABLE, StatusError(http.MethodPost, "/_bulk", res), "deleting sealed tickets")
	}
	return nil
}
