package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// Client posts batches to webhook destinations.
type Client struct {
	HTTP *http.Client
	Now  func() time.Time
}

// NewClient returns a Client on streaming.HTTPClient.
func NewClient(allowPrivate bool, timeout time.Duration) *Client {
	return &Client{HTTP: streaming.HTTPClient(allowPrivate, timeout), Now: time.Now}
}

// Send posts b to d, signed with d's secret and carrying d's headers, and
// says what the answer means (streaming.Classify). err is set when no answer came
// (the outcome is then Retry) or the batch could not be encoded.
func (c *Client) Send(ctx context.Context, dest stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	d, err := streaming.SettingsOf[*Config](dest)
	if err != nil {
		return streaming.Rejected, 0, "", err
	}
	body := b.AppendJSON(make([]byte, 0, 64<<10))
	now := c.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return streaming.Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the webhook URL")
	}
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TimestampHeader, fmt.Sprint(now.Unix()))
	req.Header.Set(SignatureHeader, Sign([]byte(d.Secret), now, body))
	a, err := streaming.Do(c.HTTP, req, now, "the webhook", 512)
	return a.Outcome, a.Wait, a.Reason, err
}
