// Package logapi reads a tenant's verifiable log from a running
// service's public API, with the tenant's token: what auditlog witness,
// auditlog log verify --api and auditlog verify --api trust beyond the
// copy under test. It checks nothing itself; package seal and the
// witness judge what it reads.
package logapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/internal/backoff"
)

// Client is one service, read with one token (empty for public routes).
type Client struct {
	// Base is the service's address, e.g. https://audit.example.
	Base  string
	Token string
	HTTP  *http.Client // default: a 30 s timeout
}

// Refusal is a 4xx answer other than 429: the service refused, which retrying the same
// request does not change.
type Refusal struct {
	Status int
	Body   string
}

func (r *Refusal) Error() string { return "status " + strconv.Itoa(r.Status) + ": " + r.Body }

// maxBody bounds an answer read: a page of 1,000 events of at most
// 256 KiB is far below; a service that sends more is refused.
const maxBody = 64 << 20

// busyTries bounds the attempts of a GET the service answers 429 or 503
// (its rate limit, or a store busy a moment); busyWaitMax bounds one wait.
const (
	busyTries   = 8
	busyWaitMax = 30 * time.Second
)

// Get GETs path (with its query) and returns the body of a 200. A 429 or
// a 503 is tried again, after the Retry-After the service gave (at most
// busyWaitMax) or a backoff from 1 s, up to busyTries attempts: a
// verifier reading thousands of tiles meets the API's rate limit, and
// must slow down rather than give up. Errors: a *Refusal for another 4xx;
// any other status, or the service unreachable, otherwise.
func (c Client) Get(ctx context.Context, path string) ([]byte, error) {
	b := backoff.New(time.Second, busyWaitMax)
	for try := 1; ; try++ {
		body, wait, err := c.get(ctx, path)
		if err == nil || wait < 0 || try == busyTries {
			return body, err
		}
		if !backoff.Sleep(ctx, min(max(wait, b.Next()), busyWaitMax)) {
			return nil, errors.Join(ctx.Err(), err)
		}
	}
}

// get is one attempt of Get; wait is ≥ 0 when the answer was 429 or 503
// (the Retry-After it carried, 0 without one), -1 otherwise.
func (c Client) get(ctx context.Context, path string) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.Base, "/")+path, nil)
	if err != nil {
		return nil, -1, err
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, -1, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	switch {
	case err != nil:
		return nil, -1, err
	case len(body) > maxBody:
		return nil, -1, fmt.Errorf("GET %s: the answer is over %d bytes", path, maxBody)
	case res.StatusCode == http.StatusOK:
		return body, -1, nil
	case res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests:
		return nil, -1, &Refusal{Status: res.StatusCode, Body: fmt.Sprintf("%.300s", body)}
	}
	wait := time.Duration(-1)
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable {
		wait = backoff.RetryAfter(res.Header.Get("Retry-After"), time.Now())
	}
	return nil, wait, fmt.Errorf("GET %s%s: %s: %.300s", c.Base, path, res.Status, body)
}

// GetJSON GETs path and decodes the JSON body of a 200 into v.
func (c Client) GetJSON(ctx context.Context, path string, v any) error {
	body, err := c.Get(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s%s: %w", c.Base, path, err)
	}
	return nil
}
