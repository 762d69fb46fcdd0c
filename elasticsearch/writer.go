package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/audit/vlog"
)

// doc is an event as stored: @timestamp (the data stream's time field;
// "timestamp" is an alias of it in the mapping), empty optional strings
// left out (an empty actor.ip is not an IP), and the changed field names
// as a keyword list.
type doc struct {
	// storedEvent holds the event's own fields (audit.EventFields) but
	// its timestamp, which is the data stream's @timestamp.
	storedEvent
	Stamp         audit.Timestamp `json:"@timestamp"`
	ChangedFields []string        `json:"changedFields,omitempty"`
	// Text and ReasonWords are the event's words for free text and
	// reason: (words.go); ReasonText, Values and Words are what documents
	// written before mapping version 6 carry instead. All are left out of
	// the event read back.
	Text        []string `json:"text,omitempty"`
	ReasonWords string   `json:"reasonWords,omitempty"`
	ReasonText  string   `json:"reasonText,omitempty"`
	Values      []string `json:"values,omitempty"`
	Words       []string `json:"words,omitempty"`
	// Accept is the event's acceptance tag (vlog.Acceptor), kept for
	// the sealer and the verifier; never part of the event.
	Accept []byte `json:"accept,omitempty"`
}

// storedEvent is audit.Event without its methods (its MarshalJSON would
// stand for the whole document): its fields are the document's.
type storedEvent audit.Event

// toDoc is the document of e (appendDoc writes it) as a value; its
// Timestamp is left zero, @timestamp holds it.
func toDoc(e *audit.Event) doc {
	d := doc{storedEvent: storedEvent(*e), Stamp: e.Timestamp, ChangedFields: e.ChangedFields(),
		Text: textWords(e), ReasonWords: search.Fold(e.Reason)}
	d.Timestamp = audit.Timestamp{}
	return d
}

func (d *doc) event() audit.Event {
	e := audit.Event(d.storedEvent)
	e.Timestamp = d.Stamp
	return e
}

// AppendBulkCreate appends the two NDJSON lines that create one event in
// a data stream with _id = event id (with no acceptance tag).
func AppendBulkCreate(buf *bytes.Buffer, index string, e *audit.Event) error {
	return appendCreate(buf, target{index: index, docID: e.ID}, e, nil)
}

// appendCreate appends the create of e at t, with its acceptance tag.
func appendCreate(buf *bytes.Buffer, t target, e *audit.Event, tag []byte) error {
	buf.WriteString(`{"create":{"_index":`)
	writeJSONString(buf, t.index)
	buf.WriteString(`,"_id":`)
	writeJSONString(buf, t.docID)
	if t.routing != "" {
		buf.WriteString(`,"routing":`)
		writeJSONString(buf, t.routing)
	}
	buf.WriteString("}}\n")
	buf.Write(appendDoc(buf.AvailableBuffer(), e, tag))
	buf.WriteByte('\n')
	return nil
}

// writeJSONString writes s as a JSON string. Index names and event ids
// are plain ASCII (validated), written as they are; anything else goes
// through the encoder's escaping.
func writeJSONString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			buf.Write(b)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

// bulkItem is the part of a _bulk answer item this store reads.
type bulkItem struct {
	Create struct {
		Index  string `json:"_index"`
		Status int    `json:"status"`
		Error  *struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"error"`
	} `json:"create"`
}

// WriteEvents implements audit.EventWriter with one synchronous _bulk
// request of create operations. Elasticsearch acknowledges an item only
// once it is in the translog (fsynced per request by default), so
// WriteCreated is durable. Per item: 201 is created; 409 means the id is
// already stored in the tenant's backing index, and the stored document
// is read back to tell a duplicate from a conflict (audit.Settle); 400 a
// permanent rejection (mapping or parsing), except the cluster's shard
// limit, a retry marked Full, and a hibernated stream's closed write index,
// a retry after WriteEvents has woken the stream; anything else (429, 5xx, a cluster block) a
// retry. Each tenant has its own data streams, so ids
// are unique per tenant: another tenant's ids never collide.
func (s *Store) WriteEvents(ctx context.Context, events []audit.Event) ([]audit.WriteResult, error) {
	return s.writeAccepted(ctx, s.accept(events), events)
}

// accepted is an event with what its acceptance made: the digest of its
// canonical encoding and its tag (nil: no acceptor). The event is the
// caller's, by pointer: a batch of 1,000 copies was 328 KB to clear,
// copy and scan, twice a batch (issue 58).
type accepted struct {
	event  *audit.Event
	digest [32]byte
	tag    []byte
}

// accept tags events at their acceptance, with the store's acceptor (the
// digest, which the tag and the sealing ticket hold, is computed only
// for them).
func (s *Store) accept(events []audit.Event) []accepted {
	out := make([]accepted, len(events))
	for i := range events {
		out[i].event = &events[i]
		if s.cfg.Accept == nil && !s.cfg.Log {
			continue
		}
		out[i].digest = vlog.EventDigest(&events[i])
		if s.cfg.Accept != nil {
			out[i].tag = s.cfg.Accept.Tag(events[i].TenantID, events[i].ID, out[i].digest)
		}
	}
	return out
}

// writeAccepted is WriteEvents of events already tagged: the writes of
// the service's clients, and the copies of stored events (consolidate),
// which keep the tag their first acceptance gave them. events are the
// batch's events in order, or nil (copied from batch then).
func (s *Store) writeAccepted(ctx context.Context, batch []accepted, events []audit.Event) ([]audit.WriteResult, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	if events == nil {
		events = plainEvents(batch)
	}
	places, err := s.batchPlacements(ctx, events)
	if err != nil {
		return nil, err
	}
	return s.writeTo(ctx, batch, events, s.targetsOf(places, events))
}

// writeTo is writeAccepted to the given targets (where the tenants write,
// or a held index: keepHeld); events are the batch's events.
func (s *Store) writeTo(ctx context.Context, batch []accepted, events []audit.Event, targets []target) ([]audit.WriteResult, error) {
	buf := bulkBody()
	for i := range events {
		if err := appendCreate(buf, targets[i], &events[i], batch[i].tag); err != nil {
			return nil, audit.Wrap(audit.EINTERNAL, err, "encoding event %s", events[i].ID)
		}
	}
	answer := bulkBody()
	res, err := s.c.DoInto(ctx, http.MethodPost, "/_bulk?filter_path=errors,items.*._index,items.*.status,items.*.error.type,items.*.error.reason", buf.Bytes(), answer)
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusOK {
		return nil, audit.Wrap(audit.EUNAVAILABLE, StatusError(http.MethodPost, "/_bulk", res), "bulk request refused")
	}
	items, err := parseBulkAnswer(res.Body)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "decoding the bulk answer")
	}
	if len(items) != len(events) {
		return nil, audit.Errorf(audit.EUNAVAILABLE, "bulk answered %d items for %d events", len(items), len(events))
	}
	recycleBody(buf)
	recycleBody(answer) // the items hold copies of what they read
	results := make([]audit.WriteResult, len(events))
	var existing []int
	asleep := map[string]bool{}
	for i, it := range items {
		results[i] = itemResult(it)
		if it.Create.Status == http.StatusConflict {
			existing = append(existing, i)
		}
		if e := it.Create.Error; e != nil && e.Type == "index_closed_exception" {
			asleep[targets[i].index] = true
		}
	}
	for i, err := range s.wake(ctx, asleep, targets) {
		results[i].Reason += "; waking it failed: " + err.Error()
		results[i].Full = atShardLimit("validation_exception", err.Error())
	}
	if len(existing) > 0 {
		if err := s.settle(ctx, events, targets, items, existing, results); err != nil {
			return nil, err
		}
	}
	if err := s.enqueue(ctx, s.writtenRefs(batch, targets, items, results)); err != nil {
		return nil, err
	}
	return results, nil
}

// writtenRefs are the tickets' refs of a _bulk's stored events (none when
// sealing is off): a created one with its digest and acceptance tag,
// a duplicate (whose stored copy may be written otherwise) without.
func (s *Store) writtenRefs(batch []accepted, targets []target, items []bulkItem, results []audit.WriteResult) []ticketRef {
	if !s.cfg.Log {
		return nil
	}
	var refs []ticketRef
	for i, r := range results {
		if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
			continue
		}
		t, e := targets[i], batch[i].event
		ref := ticketRef{Tenant: e.TenantID, ID: e.ID, DocID: t.docID, Index: items[i].Create.Index, Routing: t.routing}
		if r.Status == audit.WriteCreated {
			ref.Digest, ref.Tag = batch[i].digest[:], batch[i].tag
		}
		refs = append(refs, ref)
	}
	return refs
}

// settle reads back, in one realtime _mget, the stored documents of the
// events answered 409, and sets each result to duplicate or conflict. A
// document that cannot be read leaves its event to be retried.
func (s *Store) settle(ctx context.Context, events []audit.Event, targets []target, items []bulkItem, existing []int, results []audit.WriteResult) error {
	type ref struct {
		Index   string `json:"_index"`
		ID      string `json:"_id"`
		Routing string `json:"routing,omitempty"`
	}
	docs := make([]ref, len(existing))
	for j, i := range existing {
		docs[j] = ref{Index: items[i].Create.Index, ID: targets[i].docID, Routing: targets[i].routing}
	}
	var out struct {
		Docs []struct {
			Found  bool            `json:"found"`
			Source json.RawMessage `json:"_source"`
		} `json:"docs"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/_mget?realtime=true", map[string]any{"docs": docs}, &out); err != nil {
		return err
	}
	if len(out.Docs) != len(existing) {
		return audit.Errorf(audit.EUNAVAILABLE, "mget answered %d documents for %d", len(out.Docs), len(existing))
	}
	for j, i := range existing {
		d := out.Docs[j]
		if !d.Found {
			results[i] = audit.WriteResult{Status: audit.WriteRetry, Reason: "409 for an id that could not be read back"}
			continue
		}
		stored, err := DecodeSource(d.Source)
		if err != nil {
			return err
		}
		results[i] = audit.Settle(&events[i], &stored)
	}
	return nil
}

func itemResult(it bulkItem) audit.WriteResult {
	c := it.Create
	reason := ""
	if c.Error != nil {
		reason = fmt.Sprintf("%s: %s", c.Error.Type, c.Error.Reason)
	}
	switch {
	case c.Status == http.StatusCreated || c.Status == http.StatusOK:
		return audit.WriteResult{Status: audit.WriteCreated}
	case c.Status == http.StatusConflict:
		return audit.WriteResult{Status: audit.WriteDuplicate}
	case c.Error != nil && atShardLimit(c.Error.Type, c.Error.Reason):
		return audit.WriteResult{Status: audit.WriteRetry, Full: true, Reason: "the cluster is at its shard limit (cluster.max_shards_per_node): " + reason}
	case c.Error != nil && c.Error.Type == "index_closed_exception":
		return audit.WriteResult{Status: audit.WriteRetry, Reason: "the tenant's stream was hibernated (its write index closed by the lifecycle pass) and is woken: " + reason}
	case c.Status == http.StatusBadRequest:
		return audit.WriteResult{Status: audit.WriteRejected, Reason: "elasticsearch rejected the event: " + reason}
	default:
		return audit.WriteResult{Status: audit.WriteRetry, Reason: fmt.Sprintf("status %d %s", c.Status, reason)}
	}
}

// atShardLimit reports whether an item was refused because the cluster
// has no room for another shard: the first write of a new tenant's
// stream (or a rollover) at cluster.max_shards_per_node answers 400
// validation_exception "this action would add [1] shards, but this
// cluster currently has [N]/[N] maximum normal shards open". That is a
// capacity limit, not a bad event: it is retried, never dead-lettered.
func atShardLimit(typ, reason string) bool {
	return typ == "validation_exception" && strings.Contains(reason, "would add [") && strings.Contains(reason, "maximum") && strings.Contains(reason, "shards open")
}

// DecodeSource reads a stored document back into an event.
func DecodeSource(src []byte) (audit.Event, error) {
	e, _, err := decodeTagged(src)
	return e, err
}

// decodeTagged reads a stored document back into an event and its
// acceptance tag.
func decodeTagged(src []byte) (audit.Event, []byte, error) {
	d, err := decodeStoredDoc(src)
	if err != nil {
		return audit.Event{}, nil, audit.Wrap(audit.EINTERNAL, err, "decoding a stored event")
	}
	return d.event(), d.Accept, nil
}

// StoredEvents implements audit.StoredLookup. Within the write index of
// the tenant's current stream a create of a stored id answers 409, which
// WriteEvents settles; an earlier copy can hide only in the tenant's other
// backing indices (rolled over, or of a former plan's stream). Those are
// searched, after a refresh so that every acknowledged write is visible;
// with none (a stream never rolled over) nothing is asked.
func (s *Store) StoredEvents(ctx context.Context, tenantID string, ids []string) (map[string]audit.Event, error) {
	out := make(map[string]audit.Event, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	older, err := s.olderIndices(ctx, tenantID)
	if err != nil || len(older) == 0 {
		return out, err
	}
	path := "/" + strings.Join(older, ",")
	if err := s.c.DoJSON(ctx, http.MethodPost, path+"/_refresh?ignore_unavailable=true&allow_no_indices=true", nil, nil); err != nil {
		return nil, err
	}
	// Room for an id stored twice by an older redelivery.
	body := map[string]any{"size": min(2*len(ids), 10000), "track_total_hits": false, "query": map[string]any{"bool": map[string]any{"filter": []any{
		map[string]any{"term": map[string]any{"tenantId": tenantID}},
		map[string]any{"terms": map[string]any{"id": ids}},
	}}}}
	var res searchResponse
	if err := s.c.DoJSON(ctx, http.MethodPost, path+"/_search?ignore_unavailable=true&allow_no_indices=true", body, &res); err != nil {
		return nil, err
	}
	var refs []ticketRef
	for _, h := range res.Hits.Hits {
		e, err := DecodeSource(h.Source)
		if err != nil {
			return nil, err
		}
		if _, seen := out[e.ID]; !seen {
			out[e.ID] = e
			refs = append(refs, ticketRef{Tenant: tenantID, ID: e.ID})
		}
	}
	// The events found are settled as duplicates and not written again:
	// one stored by a writer that died before its ticket is ticketed here
	// (the sealer leaves out those already in the log).
	return out, s.enqueue(ctx, refs)
}

// olderIndices lists the backing indices of every stream the tenant's
// events are read from, but the write index of the stream it writes to.
func (s *Store) olderIndices(ctx context.Context, tenantID string) ([]string, error) {
	p, err := s.ensurePlacement(ctx, tenantID, s.cfg.DefaultPlan)
	if err != nil {
		return nil, err
	}
	streams, err := s.resolveStreams(ctx, s.patternOf(p, tenantID))
	if err != nil {
		return nil, err
	}
	current := s.targetOf(p, tenantID, "").index
	var older []string
	for _, st := range streams {
		bi := st.BackingIndices
		if st.Name == current && len(bi) > 0 {
			bi = bi[:len(bi)-1] // the write index is last
		}
		older = append(older, bi...)
	}
	return older, nil
}

// plainEvents copies the events of batch.
func plainEvents(batch []accepted) []audit.Event {
	events := make([]audit.Event, len(batch))
	for i := range batch {
		events[i] = *batch[i].event
	}
	return events
}
