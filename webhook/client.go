package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Client posts batches to webhook destinations.
type Client struct {
	HTTP *http.Client
	Now  func() time.Time
}

// NewClient returns a Client on HTTPClient.
func NewClient(allowPrivate bool, timeout time.Duration) *Client {
	return &Client{HTTP: HTTPClient(allowPrivate, timeout), Now: time.Now}
}

// HTTPClient is the HTTP client of every stream destination: its
// connections reach public addresses only, unless allowPrivate (Dialer),
// through no proxy (a proxy would dial the destination where the dialer
// cannot check it), following no redirect (a redirect would lead the
// batch, and its credentials, elsewhere), with timeout per request.
func HTTPClient(allowPrivate bool, timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = Dialer(allowPrivate).DialContext
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Send posts b to d, signed with d's secret and carrying d's headers, and
// says what the answer means (Classify). err is set when no answer came
// (the outcome is then Retry) or the batch could not be encoded.
func (c *Client) Send(ctx context.Context, d audit.StreamDestination, b Batch) (Outcome, time.Duration, string, error) {
	body := b.AppendJSON(make([]byte, 0, 64<<10))
	now := c.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the webhook URL")
	}
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(TimestampHeader, fmt.Sprint(now.Unix()))
	req.Header.Set(SignatureHeader, Sign([]byte(d.Secret), now, body))
	a, err := Do(c.HTTP, req, now, "the webhook", 512)
	return a.Outcome, a.Wait, a.Reason, err
}
