package datadog

import (
	"encoding/json"
	"fmt"

	"github.com/auditlog/auditlog/streaming"
)

// Item is one log item of the intake.
type Item struct {
	Source    string          `json:"ddsource"`
	Service   string          `json:"service"`
	Tags      string          `json:"ddtags"`
	Message   string          `json:"message"`
	Timestamp int64           `json:"timestamp,omitempty"` // milliseconds since the epoch
	TenantID  string          `json:"tenant_id"`
	StreamID  string          `json:"stream_id"`
	LeafIndex *uint64         `json:"leaf_index,omitempty"` // none for a test delivery
	Test      bool            `json:"test,omitempty"`
	Event     json.RawMessage `json:"event"`
}

// item is e of b as a log item. Its message is the OCSF message, or the
// event's action and resource ("delete agent 8f2c…"); its timestamp the
// event's time.
func item(b streaming.Batch, e streaming.Entry) Item {
	var head struct {
		Message  string `json:"message"` // OCSF's, a test event's
		Action   string `json:"action"`
		Resource struct{ Type, ID string }
	}
	_ = json.Unmarshal(e.Event, &head) // a field it lacks stays empty
	it := Item{Source: "auditlog", Service: "auditlog", TenantID: b.TenantID, StreamID: b.StreamID, Event: e.Event, Test: b.Test,
		Tags: fmt.Sprintf("tenant_id:%s,stream_id:%s,format:%s", b.TenantID, b.StreamID, b.Format), Message: head.Message}
	if !b.Test {
		leaf := e.LeafIndex
		it.LeafIndex = &leaf
	}
	if t := e.Time(); !t.IsZero() {
		it.Timestamp = t.UnixMilli()
	}
	if it.Message == "" {
		it.Message = fmt.Sprintf("%s %s %s", head.Action, head.Resource.Type, head.Resource.ID)
	}
	return it
}
