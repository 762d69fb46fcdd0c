// Package logapi reads a tenant's verifiable log from a running
// service's public API, with the tenant's token: what auditlog witness,
// auditlog log verify --api and auditlog verify --api trust beyond the
// copy under test. It checks nothing itself; package seal and the
// witness judge what it reads.
package logapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// Get GETs path (with its query) and returns the body of a 200. Errors: a
// *Refusal for a 4xx; any other status, or the service unreachable,
// otherwise.
func (c Client) Get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.Base, "/")+path, nil)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody+1))
	switch {
	case err != nil:
		return nil, err
	case len(body) > maxBody:
		return nil, fmt.Errorf("GET %s: the answer is over %d bytes", path, maxBody)
	case res.StatusCode == http.StatusOK:
		return body, nil
	case res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests:
		return nil, &Refusal{Status: res.StatusCode, Body: fmt.Sprintf("%.300s", body)}
	}
	return nil, fmt.Errorf("GET %s%s: %s: %.300s", c.Base, path, res.Status, body)
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
