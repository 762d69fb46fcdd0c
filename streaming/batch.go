package streaming

import (
	"encoding/json"
	"strconv"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// Batch is one delivery: the leaf indexes [From, To) of one tenant's log,
// and, in log order, those of their events the stream's filter kept, each
// with its leaf index. Consecutive batches cover consecutive ranges, so a
// receiver that keeps each index once and each range's end sees a lost
// batch as a range that does not start where the last one ended, and a
// repeat as indexes it has. Checkpoint, when set, is the signed checkpoint
// (the note's text) of a tree that holds the whole range.
type Batch struct {
	TenantID string `json:"tenantId"`
	StreamID string `json:"streamId"`
	// Format is the stream's format: "event" (the API's event JSON) or
	// "ocsf"; a test delivery's event is in neither.
	Format     string  `json:"format"`
	From       uint64  `json:"from"`
	To         uint64  `json:"to"`
	Events     []Entry `json:"events"`
	Checkpoint string  `json:"checkpoint,omitempty"`
	// Test marks a test delivery an admin asked for: no range (From =
	// To), one event that is no event of the log, and no log position
	// (its entry has no leafIndex: a receiver that keeps each index once
	// would otherwise keep the test event in a real leaf's place).
	Test bool `json:"test,omitempty"`
}

// Entry is one event of a batch and its place in the tenant's log.
type Entry struct {
	LeafIndex uint64          `json:"leafIndex"`
	Event     json.RawMessage `json:"event"` // in the stream's format
}

// Check holds a batch to the stream's promises: one tenant, a range that
// starts at the cursor it was read at and is not empty, and events inside
// it with strictly rising leaf indexes. The delivery loop checks every
// batch before it sends it; a receiver can too.
func (b Batch) Check(tenantID string, cursor uint64) error {
	switch {
	case b.TenantID != tenantID:
		return audit.Errorf(audit.EINTERNAL, "a batch of tenant %s in a stream of tenant %s", b.TenantID, tenantID)
	case b.From != cursor || b.To <= b.From:
		return audit.Errorf(audit.EINTERNAL, "a batch covering [%d, %d) read at cursor %d", b.From, b.To, cursor)
	}
	next := b.From
	for _, e := range b.Events {
		if e.LeafIndex < next || e.LeafIndex >= b.To {
			return audit.Errorf(audit.EINTERNAL, "leaf %d out of order or outside [%d, %d)", e.LeafIndex, b.From, b.To)
		}
		next = e.LeafIndex + 1
	}
	return nil
}

// AppendJSON appends b's JSON, as json.Marshal writes it (a test
// delivery's entry without its leafIndex), to dst. Written
// by hand because the events are JSON this service made: json.Marshal
// would check and compact each again, which was a third of a stream's CPU.
func (b *Batch) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"tenantId":`...)
	dst = jsonenc.AppendHTMLString(dst, b.TenantID)
	dst = jsonenc.AppendHTMLString(jsonenc.AppendField(dst, "streamId"), b.StreamID)
	dst = jsonenc.AppendHTMLString(jsonenc.AppendField(dst, "format"), b.Format)
	dst = strconv.AppendUint(jsonenc.AppendField(dst, "from"), b.From, 10)
	dst = strconv.AppendUint(jsonenc.AppendField(dst, "to"), b.To, 10)
	dst = append(dst, `,"events":[`...)
	for i, e := range b.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		if b.Test {
			dst = append(append(dst, `{"event":`...), e.Event...)
			dst = append(dst, '}')
			continue
		}
		dst = e.AppendJSON(dst)
	}
	dst = append(dst, ']')
	dst = jsonenc.AppendOptional(dst, "checkpoint", b.Checkpoint, true)
	if b.Test {
		dst = append(dst, `,"test":true`...)
	}
	return append(dst, '}')
}

// AppendJSON appends e's JSON, {"leafIndex":n,"event":…}, to dst.
func (e Entry) AppendJSON(dst []byte) []byte {
	dst = strconv.AppendUint(append(dst, `{"leafIndex":`...), e.LeafIndex, 10)
	dst = append(append(dst, `,"event":`...), e.Event...)
	return append(dst, '}')
}
