// Package batchtest makes stream batches for the destinations' tests.
package batchtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// Big is a batch of stream s-1 of tenant t: n events in the event format
// from leaf from, their times 1 ms apart from 1795687202250, event i
// deleting agent a-i; every tenth carries 10 KB of reason, so that a
// batch outgrows a destination's request by bytes too.
func Big(t string, from uint64, n int) streaming.Batch {
	b := streaming.Batch{TenantID: t, StreamID: "s-1", Format: stream.FormatEvent, From: from, To: from + uint64(n)}
	for i := range n {
		e := audit.Event{ID: fmt.Sprintf("evt_%d", i), TenantID: t, Timestamp: audit.NewTimestamp(time.UnixMilli(1795687202250 + int64(i))),
			Action: audit.ActionDelete, Resource: audit.Resource{Type: "agent", ID: fmt.Sprint("a-", i)}}
		if i%10 == 0 {
			e.Reason = strings.Repeat("r", 10<<10)
		}
		raw, _ := json.Marshal(e)
		b.Events = append(b.Events, streaming.Entry{LeafIndex: from + uint64(i), Event: raw})
	}
	return b
}
