package periodicexport

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// API reads, from a running service, what a verification trusts beyond
// the copy under test: the public keys (GET /api/export-keys, public) and
// the tenant's delivered windows (GET /api/audit-logs/periodic-exports,
// with a tenant token), which the exporter cannot take back once they
// were listed.
type API struct {
	// Base is the service's address, e.g. https://audit.example.
	Base   string
	Token  string
	Client *http.Client
}

// maxAPIPages bounds the delivered windows read (500 a page): twenty
// years of hourly windows.
const maxAPIPages = 400

// Keys returns the published public keys by key id. A published key
// whose id is not the id of its own bytes is an error.
func (a API) Keys(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	var out struct {
		Keys []struct {
			KeyID     string `json:"keyId"`
			PublicKey string `json:"publicKey"`
		} `json:"keys"`
	}
	if err := a.get(ctx, "/api/export-keys", &out); err != nil {
		return nil, err
	}
	keys := map[string]ed25519.PublicKey{}
	for _, k := range out.Keys {
		pub, err := ParsePublicKey([]byte(k.PublicKey))
		if err != nil {
			return nil, fmt.Errorf("key %s of %s/api/export-keys: %w", k.KeyID, a.Base, err)
		}
		if id := audit.KeyID(pub); id != k.KeyID {
			return nil, fmt.Errorf("%s/api/export-keys lists key %s, whose bytes have the id %s", a.Base, k.KeyID, id)
		}
		keys[k.KeyID] = pub
	}
	return keys, nil
}

// Delivered returns a checkpoint for every window and late file the
// tenant's API lists as delivered.
func (a API) Delivered(ctx context.Context) ([]Checkpoint, error) {
	var cps []Checkpoint
	cursor := ""
	for range maxAPIPages {
		var page struct {
			Data       []audit.PeriodicRecord `json:"data"`
			NextCursor *string                `json:"nextCursor"`
		}
		q := url.Values{"pageSize": {"500"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if err := a.get(ctx, "/api/audit-logs/periodic-exports?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		for _, r := range page.Data {
			cps = append(cps, Checkpoint{Key: r.DigestKey, Source: a.Base + "'s delivered windows"})
		}
		if page.NextCursor == nil {
			return cps, nil
		}
		cursor = *page.NextCursor
	}
	return nil, fmt.Errorf("%s lists more than %d pages of delivered windows", a.Base, maxAPIPages)
}

func (a API) get(ctx context.Context, path string, v any) error {
	c := a.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(a.Base, "/")+path, nil)
	if err != nil {
		return err
	}
	if a.Token != "" {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s%s: %s: %.300s", a.Base, path, res.Status, body)
	}
	return json.Unmarshal(body, v)
}
