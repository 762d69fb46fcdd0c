// Package elasticsearch is the Elasticsearch backend: the client, the
// detection of what the cluster supports, the bootstrap of templates and
// lifecycle policies, and the event store on per-tenant data streams.
package elasticsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"

	"github.com/auditlog/auditlog/audit"
)

// Config is the Elasticsearch section of the configuration, resolved in
// cmd/ and passed in.
type Config struct {
	URLs     []string
	Username string
	Password string
	APIKey   string
	// IndexPrefix names everything this service creates: data streams
	// "<prefix>-events-<tenant>", templates and policies "<prefix>-…". It
	// must not start with logs- or metrics- (built-in templates there).
	IndexPrefix string
	// Replicas is the replica count of every backing index.
	Replicas int
	// RequestTimeout bounds one request.
	RequestTimeout time.Duration
}

// Client is the official transport (elastictransport, which go-elasticsearch
// itself is built on) with the few helpers the backend needs. It sends raw
// JSON bodies, so that the bodies can be checked against golden files. The
// go-elasticsearch root package is not imported: it pulls in the typed API
// (858 packages this service never uses), which made a cold build take
// about twice as long (BENCHMARKS.md).
type Client struct {
	es  *elastictransport.Client
	cfg Config
}

// New returns a client for cfg. It does not contact the cluster; call
// Detect to learn what the cluster supports.
func New(cfg Config) (*Client, error) {
	if len(cfg.URLs) == 0 {
		return nil, audit.Errorf(audit.EINVALID, "elasticsearch: no URL configured")
	}
	if cfg.IndexPrefix == "" {
		cfg.IndexPrefix = "auditlog"
	}
	if strings.HasPrefix(cfg.IndexPrefix, "logs-") || strings.HasPrefix(cfg.IndexPrefix, "metrics-") {
		return nil, audit.Errorf(audit.EINVALID, "elasticsearch: index prefix %q collides with built-in templates", cfg.IndexPrefix)
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	urls := make([]*url.URL, len(cfg.URLs))
	for i, raw := range cfg.URLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, audit.Errorf(audit.EINVALID, "elasticsearch: %q is not a URL like http://localhost:9200", raw)
		}
		urls[i] = u
	}
	opts := []elastictransport.Option{
		elastictransport.WithURLs(urls...),
		// Retries are the caller's business: the indexer retries forever
		// with backoff, the API answers 503 at once.
		elastictransport.WithDisableRetry(),
		elastictransport.WithTransport(&http.Transport{
			// Answers come uncompressed: Elasticsearch would otherwise gzip
			// every answer (Go asks for it by default), which costs the
			// cluster's CPU and ours for each page of a scan or a search;
			// the service and its cluster share a data centre, where bytes
			// are cheaper than cores (a day's periodic export ran ~20% of
			// its time in gunzip).
			DisableCompression:    true,
			MaxIdleConnsPerHost:   32,
			ResponseHeaderTimeout: cfg.RequestTimeout,
			IdleConnTimeout:       90 * time.Second,
		}),
	}
	switch {
	case cfg.APIKey != "":
		opts = append(opts, elastictransport.WithAPIKey(cfg.APIKey))
	case cfg.Username != "":
		opts = append(opts, elastictransport.WithBasicAuth(cfg.Username, cfg.Password))
	}
	c, err := elastictransport.NewClient(opts...)
	if err != nil {
		return nil, audit.Wrap(audit.EINVALID, err, "elasticsearch: bad configuration")
	}
	return &Client{es: c, cfg: cfg}, nil
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// Response is a finished request: its status, headers and whole body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends one request with an optional JSON (or NDJSON) body and reads
// the whole answer. Transport failures and 5xx/429 answers come back as
// EUNAVAILABLE errors; other statuses are returned for the caller to
// judge.
func (c *Client) Do(ctx context.Context, method, path string, body []byte) (*Response, error) {
	return c.DoInto(ctx, method, path, body, nil)
}

// DoInto is Do reading the answer into buf, when it is not nil, after
// emptying it: the Response's Body is then buf's bytes, valid until buf
// is used again. Elasticsearch sends most answers chunked, without a
// length, so a buffer kept between requests saves growing a new one.
func (c *Client) DoInto(ctx context.Context, method, path string, body []byte, buf *bytes.Buffer) (*Response, error) {
	// RequestTimeout bounds the whole exchange, the answer's body too (the
	// transport's header timeout alone lets a stalled body hang).
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	res, err := c.Stream(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := readAnswer(res, buf)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch: reading the answer failed")
	}
	out := &Response{Status: res.StatusCode, Header: res.Header, Body: b}
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
		return out, audit.Wrap(audit.EUNAVAILABLE, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, snippet(b)), "elasticsearch is unavailable")
	}
	return out, nil
}

// readAnswer reads the whole body of res: into buf when it is not nil;
// else into one buffer of its length when Elasticsearch sends one
// (io.ReadAll would grow a buffer from 512 bytes and copy it at each
// step), else as io.ReadAll does.
func readAnswer(res *http.Response, buf *bytes.Buffer) ([]byte, error) {
	if buf != nil {
		buf.Reset()
		_, err := buf.ReadFrom(res.Body)
		return buf.Bytes(), err
	}
	if n := res.ContentLength; n > 0 && n <= maxSizedAnswer {
		b := make([]byte, n)
		if _, err := io.ReadFull(res.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(res.Body)
}

// maxSizedAnswer bounds the buffer readAnswer makes up front from a
// Content-Length: a larger answer grows as it arrives.
const maxSizedAnswer = 64 << 20

// Stream sends one request and returns the open answer; the caller closes
// its body. Use it for large answers that are decoded incrementally.
func (c *Client) Stream(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, path, rd)
	if err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "elasticsearch: building request")
	}
	if body != nil {
		ct := "application/json"
		if strings.Contains(path, "_bulk") {
			ct = "application/x-ndjson"
		}
		req.Header.Set("Content-Type", ct)
	}
	res, err := c.es.Perform(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, ctx.Err(), "elasticsearch: request cancelled or timed out")
		}
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch is unreachable")
	}
	return res, nil
}

// DoJSON sends body (marshalled unless it is already []byte) and decodes
// a 2xx answer into out (when out is not nil). Any other status becomes
// an error carrying Elasticsearch's reason.
func (c *Client) DoJSON(ctx context.Context, method, path string, body any, out any) error {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return audit.Wrap(audit.EINTERNAL, err, "elasticsearch: encoding request")
		}
	}
	res, err := c.Do(ctx, method, path, raw)
	if err != nil {
		return err
	}
	if res.Status < 200 || res.Status > 299 {
		return StatusError(method, path, res)
	}
	if out != nil {
		if err := json.Unmarshal(res.Body, out); err != nil {
			return audit.Wrap(audit.EINTERNAL, err, "elasticsearch: decoding answer of %s %s", method, path)
		}
	}
	return nil
}

// StatusError turns a non-2xx answer into an application error: 404 is
// ENOTFOUND, 409 ECONFLICT, 429/5xx EUNAVAILABLE, other 4xx EINTERNAL
// (a request this service built wrongly is a bug, not a client error).
func StatusError(method, path string, res *Response) error {
	cause := fmt.Errorf("%s %s: %d %s", method, path, res.Status, snippet(res.Body))
	switch {
	case res.Status == http.StatusNotFound:
		return audit.Wrap(audit.ENOTFOUND, cause, "not found")
	case res.Status == http.StatusConflict:
		return audit.Wrap(audit.ECONFLICT, cause, "conflict")
	case res.Status == http.StatusTooManyRequests || res.Status >= 500:
		return audit.Wrap(audit.EUNAVAILABLE, cause, "elasticsearch is unavailable")
	}
	return audit.Wrap(audit.EINTERNAL, cause, "elasticsearch rejected a request")
}

func snippet(b []byte) string {
	const max = 512
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// Ping checks that the cluster answers and is at least yellow, within the
// context's deadline. It backs /readyz.
func (c *Client) Ping(ctx context.Context) error {
	var h struct {
		Status string `json:"status"`
	}
	if err := c.DoJSON(ctx, http.MethodGet, "/_cluster/health?timeout=2s", nil, &h); err != nil {
		return err
	}
	if h.Status == "red" {
		return audit.Errorf(audit.EUNAVAILABLE, "elasticsearch cluster health is red")
	}
	return nil
}
