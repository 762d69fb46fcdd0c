// Package splunk is the Splunk HTTP Event Collector destination of a
// tenant's stream (audit.StreamSplunk): the batch's events as HEC event
// objects, indexer acknowledgment when the collector has it, and the
// answer's meaning as the stream's rules read it.
package splunk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/webhook"
)

// Client sends batches to HTTP Event Collectors.
type Client struct {
	HTTP *http.Client
	Now  func() time.Time
	// AckTimeout bounds the wait for the indexers' acknowledgment of a
	// request (polled every AckPoll); past it the batch is sent again.
	AckTimeout, AckPoll time.Duration
}

// NewClient returns a Client on webhook.HTTPClient: public addresses
// only (unless allowPrivate), no proxy, no redirect.
func NewClient(allowPrivate bool, timeout time.Duration) *Client {
	return &Client{HTTP: webhook.HTTPClient(allowPrivate, timeout), Now: time.Now, AckTimeout: 2 * time.Minute, AckPoll: time.Second}
}

// event is one HEC event object. The indexed fields carry what a search
// in Splunk needs to prove the stream complete: the tenant, the stream,
// and the event's leaf index in the tenant's log.
type event struct {
	Time       float64         `json:"time"`
	Source     string          `json:"source"`
	Sourcetype string          `json:"sourcetype"`
	Index      string          `json:"index,omitempty"`
	Event      json.RawMessage `json:"event"`
	Fields     map[string]any  `json:"fields"`
}

// body is the batch as HEC takes it: its event objects, concatenated.
func body(d audit.StreamDestination, b webhook.Batch) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, e := range b.Events {
		var ts struct {
			Timestamp time.Time `json:"timestamp"` // the event JSON's, a test event's
			Time      int64     `json:"time"`      // OCSF's, in milliseconds
		}
		if err := json.Unmarshal(e.Event, &ts); err != nil {
			return nil, err
		}
		if ts.Time != 0 {
			ts.Timestamp = time.UnixMilli(ts.Time)
		}
		fields := map[string]any{"tenant_id": b.TenantID, "stream_id": b.StreamID, "leaf_index": e.LeafIndex}
		if b.Test {
			fields = map[string]any{"tenant_id": b.TenantID, "stream_id": b.StreamID, "test": true}
		}
		err := enc.Encode(event{Time: float64(ts.Timestamp.UnixMilli()) / 1000, Source: "auditlog", Sourcetype: sourcetype(b.Format), Index: d.Index, Event: e.Event,
			Fields: fields})
		if err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// sourcetype names the events' format for Splunk: auditlog:event, or
// auditlog:ocsf for OCSF.
func sourcetype(format string) string {
	if format == audit.FormatOCSF {
		return "auditlog:ocsf"
	}
	return "auditlog:event"
}

// Channel is the request channel of a stream: one per stream, derived,
// so that a restarted streamer polls the acknowledgments of the same one.
func Channel(streamID string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("auditlog-stream:"+streamID)).String()
}

// endpoint is the collector's path under the configured URL.
func endpoint(base, path string) string {
	return strings.TrimSuffix(strings.TrimSuffix(base, "/services/collector/event"), "/") + path
}

// Send posts b's events to the collector and, when it answers an ackId,
// waits for the indexers' acknowledgment: only then is the batch
// accepted. A batch whose events the filter all left out sends nothing
// and is accepted (its range is delivered).
func (c *Client) Send(ctx context.Context, d audit.StreamDestination, b webhook.Batch) (webhook.Outcome, time.Duration, string, error) {
	if len(b.Events) == 0 {
		return webhook.Accepted, 0, "", nil
	}
	data, err := body(d, b)
	if err != nil {
		return webhook.Rejected, 0, "", audit.Wrap(audit.EINTERNAL, err, "encoding a batch for Splunk")
	}
	var answer struct {
		Text  string `json:"text"`
		Code  int    `json:"code"`
		AckID *int   `json:"ackId"`
	}
	outcome, wait, reason, err := c.post(ctx, d, b.StreamID, "/services/collector/event", data, &answer)
	if outcome != webhook.Accepted || answer.AckID == nil {
		return outcome, wait, reason, err
	}
	return c.await(ctx, d, b.StreamID, *answer.AckID)
}

// post sends one request to the collector and decodes its JSON answer
// into out; the outcome is the status's, with HEC's text in the reason.
func (c *Client) post(ctx context.Context, d audit.StreamDestination, streamID, path string, data []byte, out any) (webhook.Outcome, time.Duration, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(d.URL, path), bytes.NewReader(data))
	if err != nil {
		return webhook.Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the collector's URL")
	}
	req.Header.Set("Authorization", "Splunk "+d.Token)
	req.Header.Set("X-Splunk-Request-Channel", Channel(streamID))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.HTTP.Do(req)
	if err != nil {
		return webhook.Retry, 0, "no answer from the collector: " + err.Error(), err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	outcome, wait := webhook.Classify(res.StatusCode, res.Header.Get("Retry-After"), c.Now())
	if outcome != webhook.Accepted {
		return outcome, wait, fmt.Sprintf("%s from the collector: %s", res.Status, bytes.TrimSpace(raw)), nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return webhook.Retry, 0, "the collector's answer does not decode: " + err.Error(), err
	}
	return webhook.Accepted, 0, "", nil
}

// await polls the acknowledgment of id until the indexers confirm it, or
// AckTimeout passes (then the batch is sent again: at least once).
func (c *Client) await(ctx context.Context, d audit.StreamDestination, streamID string, id int) (webhook.Outcome, time.Duration, string, error) {
	deadline := c.Now().Add(c.AckTimeout)
	q, _ := json.Marshal(map[string][]int{"acks": {id}})
	for {
		var answer struct {
			Acks map[string]bool `json:"acks"`
		}
		outcome, wait, reason, err := c.post(ctx, d, streamID, "/services/collector/ack", q, &answer)
		if outcome != webhook.Accepted {
			return outcome, wait, reason, err
		}
		if answer.Acks[fmt.Sprint(id)] {
			return webhook.Accepted, 0, "", nil
		}
		if c.Now().After(deadline) {
			return webhook.Retry, 0, fmt.Sprintf("the collector's indexers did not acknowledge request %d within %s", id, c.AckTimeout), nil
		}
		select {
		case <-ctx.Done():
			return webhook.Retry, 0, "stopped while waiting for the acknowledgment", ctx.Err()
		case <-time.After(c.AckPoll):
		}
	}
}
