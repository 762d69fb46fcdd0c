package sentinel

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// key names a cached token: the tenant, the client and a hash of the
// secret (a new secret gets a new token).
func key(d *Config) string {
	h := sha256.Sum256([]byte(d.Secret))
	return d.AzureTenant + "/" + d.ClientID + "/" + hex.EncodeToString(h[:8])
}

func (c *Client) forget(d *Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tokens, key(d))
}

// token returns an access token for d's application, from the cache
// while it has five minutes left, else from Entra ID (client
// credentials). Entra ID refusing the application (400 or 401:
// invalid_client, unauthorized_client, a tenant it does not know) is
// Refused with its description.
func (c *Client) token(ctx context.Context, d *Config) (string, streaming.Outcome, time.Duration, string, error) {
	k := key(d)
	c.mu.Lock()
	t, ok := c.tokens[k]
	c.mu.Unlock()
	if ok && c.Now().Add(5*time.Minute).Before(t.expires) {
		return t.value, streaming.Accepted, 0, "", nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {d.ClientID}, "client_secret": {d.Secret}, "scope": {c.Scope}}
	u := strings.TrimSuffix(c.Authority, "/") + "/" + url.PathEscape(d.AzureTenant) + "/oauth2/v2.0/token"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return "", streaming.Rejected, 0, "", audit.Wrap(audit.EINVALID, err, "the Entra ID authority")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	a, err := streaming.Do(c.HTTP, req, c.Now(), "Entra ID", 64<<10)
	if err != nil {
		return "", a.Outcome, 0, a.Reason, err
	}
	var answer struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(a.Body, &answer)
	if a.Outcome == streaming.Rejected && a.Code == http.StatusBadRequest {
		a.Outcome = streaming.Refused // Entra ID answers 400 for a wrong client or tenant, 401 for a wrong secret
	}
	if a.Outcome == streaming.Accepted && answer.AccessToken == "" {
		a.Outcome = streaming.Retry // a 2xx without a token is no token: asked again
	}
	if a.Outcome != streaming.Accepted || answer.AccessToken == "" {
		desc := cmp.Or(answer.Description, string(bytes.TrimSpace(a.Body)))
		return "", a.Outcome, a.Wait, fmt.Sprintf("%s from Entra ID: %s %s", a.Status, answer.Error, firstLine(desc)), nil
	}
	t = token{value: answer.AccessToken, expires: c.Now().Add(time.Duration(answer.ExpiresIn) * time.Second)}
	c.mu.Lock()
	c.tokens[k] = t
	c.mu.Unlock()
	return t.value, streaming.Accepted, 0, "", nil
}

// firstLine is Entra ID's description up to its first line break (the
// rest is a trace id and a timestamp).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	line, _, _ = strings.Cut(line, "\n")
	return line
}
