// Package sentinel delivers a stream's batches to Microsoft Sentinel
// through Azure Monitor's Logs Ingestion API (api-version 2023-01-01,
// documented at learn.microsoft.com/azure/azure-monitor/logs/logs-ingestion-api-overview):
// an Entra ID application's token (OAuth 2.0 client credentials), then
// POST <endpoint>/dataCollectionRules/<rule>/streams/<stream> with the
// rows. Both are small documented HTTP calls, so they are written here on
// the streams' HTTP client (public addresses only, no proxy, no redirect)
// rather than through the Azure SDK's azlogs and azidentity, which bring
// their own transports and credential chains.
//
// Each event is a row of the rule's stream: TimeGenerated (the event's
// time), AuditTenantId, StreamId, LeafIndex, Format and Event (the event
// in the stream's format); docs/streams.md gives the rule's declaration. A
// batch goes in gzip calls of at most 1 MB (the API's limit), one after
// the other, accepted when every call was (204), sent again whole
// otherwise (a receiver deduplicates by LeafIndex).
package sentinel

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// Defaults of the deployment's settings (AUDITLOG_STREAM_AZURE_*).
const (
	DefaultAuthority = "https://login.microsoftonline.com"
	DefaultScope     = "https://monitor.azure.com//.default"
	APIVersion       = "2023-01-01"
	MaxBytes         = 1 << 20 // a call's body, before compression
)

// Client sends batches to Sentinel.
type Client struct {
	HTTP *http.Client
	Now  func() time.Time
	// Authority is Entra ID's login host (another for a sovereign cloud),
	// Scope the Logs Ingestion API's.
	Authority, Scope string

	mu     sync.Mutex
	tokens map[string]token // by tenant, client and secret
}

type token struct {
	value   string
	expires time.Time
}

// NewClient returns a Client on the streams' HTTP client.
func NewClient(allowPrivate bool, timeout time.Duration, authority, scope string) *Client {
	return &Client{HTTP: streaming.HTTPClient(allowPrivate, timeout), Now: time.Now, Authority: authority, Scope: scope, tokens: map[string]token{}}
}

// Send writes b's events as rows of d's stream and says what the answers
// mean: Entra ID refusing the application, the API refusing its token
// twice (403, or 401 after a new token) or knowing no such rule (404)
// pauses the stream; another 4xx parks the batch; 429 and 5xx
// are retried, honouring Retry-After. err is set when no answer came or
// the batch could not be encoded.
func (c *Client) Send(ctx context.Context, dest stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	d, err := streaming.SettingsOf[*Config](dest)
	if err != nil {
		return streaming.Rejected, 0, "", err
	}
	calls, err := bodies(b)
	if err != nil {
		return streaming.Rejected, 0, "", audit.Wrap(audit.EINTERNAL, err, "encoding a batch for Sentinel")
	}
	for _, body := range calls {
		o, wait, reason, err := c.upload(ctx, d, body, true)
		if o != streaming.Accepted {
			return o, wait, reason, err
		}
	}
	return streaming.Accepted, 0, "", nil
}

// upload makes one call; a 401 gets a new token and one more try.
func (c *Client) upload(ctx context.Context, d *Config, body []byte, again bool) (streaming.Outcome, time.Duration, string, error) {
	tok, o, wait, reason, err := c.token(ctx, d)
	if o != streaming.Accepted {
		return o, wait, reason, err
	}
	u := strings.TrimSuffix(d.URL, "/") + "/dataCollectionRules/" + url.PathEscape(d.DCR) + "/streams/" + url.PathEscape(d.StreamName) + "?api-version=" + APIVersion
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return streaming.Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the data collection endpoint")
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	a, err := streaming.Do(c.HTTP, req, c.Now(), "the Logs Ingestion API", 512)
	if a.Code == http.StatusUnauthorized && again {
		c.forget(d)
		return c.upload(ctx, d, body, false)
	}
	if a.Code == http.StatusNotFound {
		a.Outcome = streaming.Refused // no such rule: the stream's configuration, not this batch
	}
	return a.Outcome, a.Wait, a.Reason, err
}

// bodies is b as gzip JSON arrays of rows, each at most MaxBytes before
// compression.
func bodies(b streaming.Batch) ([][]byte, error) {
	return streaming.GzipArrays(b.Events, func(e streaming.Entry) Row { return row(b, e) }, 0, MaxBytes)
}
