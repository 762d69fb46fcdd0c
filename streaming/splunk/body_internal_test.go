package splunk

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/streaming"
)

// hecEvent is a HEC event object as encoding/json writes it: the oracle
// of body's hand-written JSON.
type hecEvent struct {
	Time       float64         `json:"time"`
	Source     string          `json:"source"`
	Sourcetype string          `json:"sourcetype"`
	Index      string          `json:"index,omitempty"`
	Event      json.RawMessage `json:"event"`
	Fields     map[string]any  `json:"fields"`
}

// TestBodyIsEncodingJSONs: body writes, byte for byte, what
// json.Encoder writes for the same event objects: with and without an
// index, a test delivery, the event JSON's and OCSF's times, HTML
// characters in the ids.
func TestBodyIsEncodingJSONs(t *testing.T) {
	events := []streaming.Entry{
		{LeafIndex: 44, Event: json.RawMessage(`{"id":"e1","timestamp":"2026-11-27T04:00:02.250Z","reason":"\u003cb\u003e"}`)},
		{LeafIndex: 45, Event: json.RawMessage(`{"class_uid":6003,"time":1795687202001,"message":"a \u0026 b"}`)},
	}
	for _, c := range []struct {
		d *Config
		b streaming.Batch
	}{
		{&Config{Index: "audit"}, streaming.Batch{TenantID: "t<1>", StreamID: "s&1", Format: stream.FormatEvent, Events: events}},
		{&Config{}, streaming.Batch{TenantID: "t", StreamID: "s", Format: stream.FormatOCSF, Events: events}},
		{&Config{}, streaming.Batch{TenantID: "t", StreamID: "s", Test: true, Events: events[:1]}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		for _, e := range c.b.Events {
			fields := map[string]any{"tenant_id": c.b.TenantID, "stream_id": c.b.StreamID, "leaf_index": e.LeafIndex}
			if c.b.Test {
				fields = map[string]any{"tenant_id": c.b.TenantID, "stream_id": c.b.StreamID, "test": true}
			}
			if err := enc.Encode(hecEvent{Time: float64(e.Time().UnixMilli()) / 1000, Source: "auditlog", Sourcetype: sourcetype(c.b.Format),
				Index: c.d.Index, Event: e.Event, Fields: fields}); err != nil {
				t.Fatal(err)
			}
		}
		if got := body(c.d, c.b); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("body:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	}
}
