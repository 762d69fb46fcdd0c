package restore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"
)

// Webhook POSTs each request as JSON to URL, signed in the
// restorejob.SignatureHeader header with Secret (restorejob.SignBody). Any 2xx is a
// delivery; anything else, or no answer, is retried. The request id is
// also sent as Idempotency-Key, so that a receiver can drop a request it
// has already applied (a delivery can repeat if the service stops between
// the receiver's answer and its record of it).
type Webhook struct {
	URL    string
	Secret []byte
	Client *http.Client
	Now    func() time.Time
}

// Send implements Sender.
func (h *Webhook) Send(ctx context.Context, r restorejob.Request, body []byte) error {
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "auditlog-restore/1")
	req.Header.Set("Idempotency-Key", r.RequestID)
	req.Header.Set(restorejob.SignatureHeader, restorejob.SignBody(h.Secret, body, now()))
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("the webhook answered %s", res.Status)
	}
	return nil
}

// Destination implements Sender: the URL without credentials or query.
func (h *Webhook) Destination() string {
	u, err := url.Parse(h.URL)
	if err != nil {
		return "webhook"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return "webhook " + u.String()
}
