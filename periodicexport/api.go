package periodicexport

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/auditlog/auditlog/audit/signing"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit/periodic"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/logapi"
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
		if id := signing.KeyID(pub); id != k.KeyID {
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
			Data       []periodic.Record `json:"data"`
			NextCursor *string           `json:"nextCursor"`
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
	return a.client().GetJSON(ctx, path, v)
}

func (a API) client() logapi.Client {
	return logapi.Client{Base: a.Base, Token: a.Token, HTTP: a.Client}
}

// LoggedDeliveries returns a checkpoint for every delivery the tenant's
// verifiable log records (periodic.DeliveryRecord, read through the list
// API), each proven in the log: its inclusion proof checked against a
// checkpoint signed by one of keys (tlog.CheckRecord over the leaf hash
// of the event as the API returns it); with a witness policy in keys,
// against the latest cosigned checkpoint, which must carry the
// cosignatures. A record not in a checkpoint yet (sealed within a second
// or two, cosigned within a few more) still counts, marked so. Errors: a
// record whose proof or checkpoint does not verify.
func (a API) LoggedDeliveries(ctx context.Context, tenant string, keys vlog.Keys) ([]Checkpoint, error) {
	var cps []Checkpoint
	q := url.Values{"pageSize": {"200"}, "resourceType": {audit.ResourcePeriodicExport}}
	err := a.client().EachPage(ctx, q, func(page []audit.Event) error {
		for _, e := range page {
			key, sig, ok := periodic.DeliveredDigest(e)
			if !ok {
				continue
			}
			where, err := a.proveLogged(ctx, tenant, e, keys)
			if err != nil {
				return fmt.Errorf("the log's record %s of the delivery of %s: %w", e.ID, key, err)
			}
			cps = append(cps, Checkpoint{Key: key, Signature: sig, Source: "the verifiable log of " + a.Base + " (" + where + ")"})
		}
		return nil
	})
	return cps, err
}

// proveLogged checks e's inclusion in the tenant's log and says where.
func (a API) proveLogged(ctx context.Context, tenant string, e audit.Event, keys vlog.Keys) (string, error) {
	in, err := a.client().Inclusion(ctx, e.ID, keys.Cosigned())
	var refused *logapi.Refusal
	if errors.As(err, &refused) && refused.Status == http.StatusNotFound {
		if keys.Cosigned() {
			return "not in a cosigned checkpoint yet", nil
		}
		return "not in a checkpoint yet", nil
	}
	if err != nil {
		return "", err
	}
	cp, err := keys.Open([]byte(in.Checkpoint))
	if err != nil {
		return "", err
	}
	if cp.Origin != vlog.Origin(keys.Name(), tenant) || cp.Size != in.TreeSize {
		return "", fmt.Errorf("its proof is against a tree of %d leaves, its checkpoint is %s at %d", in.TreeSize, cp.Origin, cp.Size)
	}
	hs := vlog.LeafHashes(e) // its entry's (v2), or a v1 leaf's
	if err := tlog.CheckRecord(in.Proof, cp.Size, cp.Root, in.LeafIndex, hs[0]); err != nil && tlog.CheckRecord(in.Proof, cp.Size, cp.Root, in.LeafIndex, hs[1]) != nil {
		return "", fmt.Errorf("its inclusion proof does not check: %w", err)
	}
	return fmt.Sprintf("leaf %d of %d", in.LeafIndex, cp.Size), nil
}

// LogKeys reads the service's log keys (GET /api/log-key): the current
// one and those of before a rotation.
func (a API) LogKeys(ctx context.Context) (vlog.Keys, error) {
	keys, err := a.client().LogKeys(ctx)
	if err != nil {
		return vlog.Keys{}, err
	}
	return vlog.ParseKeys(strings.Join(keys, ","))
}
