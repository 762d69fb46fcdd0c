// Package datadog delivers a stream's batches to Datadog's logs intake
// (Logs API v2, POST /api/v2/logs, documented at
// docs.datadoghq.com/api/latest/logs): a small documented HTTP API, so
// written here on the streams' HTTP client rather than through Datadog's
// generated API client, which would bring its own transport (and lose
// the dialer that keeps streams off private addresses).
//
// Each event is a log item: its event (in the stream's format) under
// "event", the tenant, stream and leaf index as attributes and tags,
// the event's time as "timestamp", and a one-line "message". A batch goes
// in gzip requests of at most 1,000 items and 5 MB uncompressed (the
// intake's limits), one after the other; it is accepted when every
// request was, and sent again whole otherwise (a receiver deduplicates
// by leaf_index, as with every destination).
package datadog

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// The intake's limits a request stays within.
const (
	MaxItems = 1000
	MaxBytes = 5 << 20
)

// Client sends batches to Datadog.
type Client struct {
	HTTP *http.Client
	Now  func() time.Time
}

// NewClient returns a Client on the streams' HTTP client.
func NewClient(allowPrivate bool, timeout time.Duration) *Client {
	return &Client{HTTP: streaming.HTTPClient(allowPrivate, timeout), Now: time.Now}
}

// Send posts b's events to d's intake URL with d's API key (Token), and
// says what the answers mean (streaming.Classify: 403 refuses the key, 429
// and 5xx are retried). err is set when no answer came or the batch could
// not be encoded.
func (c *Client) Send(ctx context.Context, dest stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	d, err := streaming.SettingsOf[*Config](dest)
	if err != nil {
		return streaming.Rejected, 0, "", err
	}
	chunks, err := requests(b)
	if err != nil {
		return streaming.Rejected, 0, "", audit.Wrap(audit.EINTERNAL, err, "encoding a batch for Datadog")
	}
	for _, body := range chunks {
		if o, wait, reason, err := c.post(ctx, d, body); o != streaming.Accepted {
			return o, wait, reason, err
		}
	}
	return streaming.Accepted, 0, "", nil
}

func (c *Client) post(ctx context.Context, d *Config, body []byte) (streaming.Outcome, time.Duration, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return streaming.Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the intake's URL")
	}
	req.Header.Set("DD-API-KEY", d.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	a, err := streaming.Do(c.HTTP, req, c.Now(), "Datadog", 512)
	return a.Outcome, a.Wait, a.Reason, err
}

// requests is b as gzip request bodies, each a JSON array of at most
// MaxItems items and MaxBytes before compression.
func requests(b streaming.Batch) ([][]byte, error) {
	return streaming.GzipArrays(b.Events, func(e streaming.Entry) Item { return item(b, e) }, MaxItems, MaxBytes)
}
