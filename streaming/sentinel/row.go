package sentinel

import (
	"encoding/json"
	"time"

	"github.com/auditlog/auditlog/streaming"
)

// Row is one row of the rule's stream (its declaration: docs/streams.md).
type Row struct {
	TimeGenerated string          `json:"TimeGenerated"` // RFC 3339, the event's time
	AuditTenantID string          `json:"AuditTenantId"` // TenantId is a column Azure keeps for itself
	StreamID      string          `json:"StreamId"`
	LeafIndex     int64           `json:"LeafIndex"` // -1 for a test delivery
	Format        string          `json:"Format"`
	Event         json.RawMessage `json:"Event"`
}

func row(b streaming.Batch, e streaming.Entry) Row {
	r := Row{TimeGenerated: e.Time().UTC().Format(time.RFC3339Nano), AuditTenantID: b.TenantID, StreamID: b.StreamID,
		LeafIndex: int64(e.LeafIndex), Format: b.Format, Event: e.Event}
	if b.Test {
		r.LeafIndex = -1
	}
	return r
}
