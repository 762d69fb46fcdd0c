// Package splunk is the Splunk HTTP Event Collector destination of a
// tenant's stream (Kind): the batch's events as HEC event
// objects, indexer acknowledgment when the collector has it, and the
// answer's meaning as the stream's rules read it.
package splunk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
	"github.com/auditlog/auditlog/streaming"
)

// Client sends batches to HTTP Event Collectors.
type Client struct {
	HTTP *http.Client
	Now  func() time.Time
	// AckTimeout bounds the wait for the indexers' acknowledgment of a
	// request (polled every AckPoll); past it the batch is sent again.
	AckTimeout, AckPoll time.Duration
}

// NewClient returns a Client on streaming.HTTPClient: public addresses
// only (unless allowPrivate), no proxy, no redirect.
func NewClient(allowPrivate bool, timeout time.Duration) *Client {
	return &Client{HTTP: streaming.HTTPClient(allowPrivate, timeout), Now: time.Now, AckTimeout: 2 * time.Minute, AckPoll: time.Second}
}

// body is the batch as HEC takes it: its event objects, concatenated,
// each {"time","source","sourcetype","index","event","fields"} with the
// indexed fields a search in Splunk needs to prove the stream complete:
// the tenant, the stream, and the event's leaf index in the tenant's log
// (a test delivery: test instead of the index). Written by hand, as
// encoding/json writes it, because the events are JSON this service made
// and json.Marshal would check and compact each again.
func body(d *Config, b streaming.Batch) []byte {
	dst := make([]byte, 0, 64<<10)
	for _, e := range b.Events {
		dst = append(dst, `{"time":`...)
		dst = strconv.AppendFloat(dst, float64(e.Time().UnixMilli())/1000, 'f', -1, 64)
		dst = append(dst, `,"source":"auditlog","sourcetype":`...)
		dst = jsonenc.AppendHTMLString(dst, sourcetype(b.Format))
		dst = jsonenc.AppendOptional(dst, "index", d.Index, true)
		dst = append(append(dst, `,"event":`...), e.Event...)
		dst = append(dst, `,"fields":{`...)
		if !b.Test {
			dst = append(strconv.AppendUint(append(dst, `"leaf_index":`...), e.LeafIndex, 10), ',')
		}
		dst = jsonenc.AppendHTMLString(append(dst, `"stream_id":`...), b.StreamID)
		dst = jsonenc.AppendHTMLString(jsonenc.AppendField(dst, "tenant_id"), b.TenantID)
		if b.Test {
			dst = append(dst, `,"test":true`...)
		}
		dst = append(dst, "}}\n"...)
	}
	return dst
}

// sourcetype names the events' format for Splunk: auditlog:event, or
// auditlog:ocsf for OCSF.
func sourcetype(format string) string {
	if format == stream.FormatOCSF {
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
func (c *Client) Send(ctx context.Context, dest stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	d, err := streaming.SettingsOf[*Config](dest)
	if err != nil {
		return streaming.Rejected, 0, "", err
	}
	if len(b.Events) == 0 {
		return streaming.Accepted, 0, "", nil
	}
	data := body(d, b)
	var answer struct {
		Text  string `json:"text"`
		Code  int    `json:"code"`
		AckID *int   `json:"ackId"`
	}
	outcome, wait, reason, err := c.post(ctx, d, b.StreamID, "/services/collector/event", data, &answer)
	if outcome != streaming.Accepted || answer.AckID == nil {
		return outcome, wait, reason, err
	}
	return c.await(ctx, d, b.StreamID, *answer.AckID)
}

// post sends one request to the collector and decodes its JSON answer
// into out; the outcome is the status's, with HEC's text in the reason.
func (c *Client) post(ctx context.Context, d *Config, streamID, path string, data []byte, out any) (streaming.Outcome, time.Duration, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(d.URL, path), bytes.NewReader(data))
	if err != nil {
		return streaming.Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the collector's URL")
	}
	req.Header.Set("Authorization", "Splunk "+d.Token)
	req.Header.Set("X-Splunk-Request-Channel", Channel(streamID))
	req.Header.Set("Content-Type", "application/json")
	a, err := streaming.Do(c.HTTP, req, c.Now(), "the collector", 64<<10)
	if a.Outcome != streaming.Accepted {
		return a.Outcome, a.Wait, a.Reason, err
	}
	if err := json.Unmarshal(a.Body, out); err != nil {
		return streaming.Retry, 0, "the collector's answer does not decode: " + err.Error(), err
	}
	return streaming.Accepted, 0, "", nil
}

// await polls the acknowledgment of id until the indexers confirm it, or
// AckTimeout passes (then the batch is sent again: at least once).
func (c *Client) await(ctx context.Context, d *Config, streamID string, id int) (streaming.Outcome, time.Duration, string, error) {
	deadline := c.Now().Add(c.AckTimeout)
	q, _ := json.Marshal(map[string][]int{"acks": {id}})
	for {
		var answer struct {
			Acks map[string]bool `json:"acks"`
		}
		outcome, wait, reason, err := c.post(ctx, d, streamID, "/services/collector/ack", q, &answer)
		if outcome != streaming.Accepted {
			return outcome, wait, reason, err
		}
		if answer.Acks[fmt.Sprint(id)] {
			return streaming.Accepted, 0, "", nil
		}
		if c.Now().After(deadline) {
			return streaming.Retry, 0, fmt.Sprintf("the collector's indexers did not acknowledge request %d within %s", id, c.AckTimeout), nil
		}
		select {
		case <-ctx.Done():
			return streaming.Retry, 0, "stopped while waiting for the acknowledgment", ctx.Err()
		case <-time.After(c.AckPoll):
		}
	}
}
