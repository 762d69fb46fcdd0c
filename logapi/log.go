package logapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// SignedCheckpoint returns the tenant's latest checkpoint (signed note
// text), or with cosigned the latest one witnesses cosigned. Errors:
// ENOTFOUND when the log has none yet.
func (c Client) SignedCheckpoint(ctx context.Context, cosigned bool) ([]byte, error) {
	path := "/api/log/checkpoint"
	if cosigned {
		path += "?cosigned=true"
	}
	body, err := c.Get(ctx, path)
	var r *Refusal
	if errors.As(err, &r) && r.Status == http.StatusNotFound {
		return nil, audit.Wrap(audit.ENOTFOUND, err, "the log has no checkpoint yet")
	}
	return body, err
}

// Leaves returns the leaves from start, at most n (up to 1,000), under
// the latest checkpoint.
func (c Client) Leaves(ctx context.Context, start int64, n int) ([]vlog.Leaf, error) {
	var page struct {
		Leaves []struct {
			Index    int64  `json:"index"`
			EventID  string `json:"eventId"`
			LeafHash string `json:"leafHash"`
		} `json:"leaves"`
	}
	q := url.Values{"start": {strconv.FormatInt(start, 10)}, "limit": {strconv.Itoa(min(max(n, 1), 1000))}}
	if err := c.GetJSON(ctx, "/api/log/leaves?"+q.Encode(), &page); err != nil {
		return nil, err
	}
	out := make([]vlog.Leaf, len(page.Leaves))
	for i, l := range page.Leaves {
		hs, err := DecodeHashes([]string{l.LeafHash})
		if err != nil {
			return nil, fmt.Errorf("leaf %d: %w", l.Index, err)
		}
		out[i] = vlog.Leaf{Index: l.Index, EventID: l.EventID, Hash: hs[0]}
	}
	return out, nil
}

// maxEventPages bounds the pages of events read (1,000 a page).
const maxEventPages = 100_000

// Events calls fn with every event of the tenant the list API returns
// (all time, 1,000 a page), exactly as it returns them.
func (c Client) Events(ctx context.Context, fn func([]audit.Event) error) error {
	return c.EachPage(ctx, url.Values{"pageSize": {"1000"}}, fn)
}

// EachPage calls fn with each page of GET /api/audit-logs?q, following
// the cursor.
func (c Client) EachPage(ctx context.Context, q url.Values, fn func([]audit.Event) error) error {
	return c.eachPage(ctx, q, func(p listPage) error { return fn(p.Data) })
}

// Rows implements seal.RowSource: every row the list API returns, each
// event as it returns it and each row it names unreadable (a stored row
// that is no event) as a row that is no event, which the verification
// names malformed at its leaf.
func (c Client) Rows(ctx context.Context, fn func([]vlog.StoredRow) error) ([]vlog.IndexFinding, error) {
	return nil, c.eachPage(ctx, url.Values{"pageSize": {"1000"}}, func(p listPage) error {
		rows := make([]vlog.StoredRow, 0, len(p.Data)+len(p.Unreadable))
		for _, e := range p.Data {
			rows = append(rows, vlog.StoredRow{Key: e.ID, Event: e})
		}
		for _, u := range p.Unreadable {
			rows = append(rows, vlog.StoredRow{Key: u.ID, Err: audit.Errorf(audit.EINVALID, "the service names the stored row unreadable: %s", u.Reason)})
		}
		return fn(rows)
	})
}

// listPage is a page of GET /api/audit-logs as the verifiers read it.
type listPage struct {
	Data       []audit.Event           `json:"data"`
	Unreadable []audit.UnreadableEvent `json:"unreadable"`
	NextCursor *string                 `json:"nextCursor"`
}

func (c Client) eachPage(ctx context.Context, q url.Values, fn func(listPage) error) error {
	cursor := ""
	for range maxEventPages {
		var page listPage
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if err := c.GetJSON(ctx, "/api/audit-logs?"+q.Encode(), &page); err != nil {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		if page.NextCursor == nil {
			return nil
		}
		cursor = *page.NextCursor
	}
	return fmt.Errorf("%s lists more than %d pages", c.Base, maxEventPages)
}

// Inclusion is an inclusion proof as the API answers it, decoded.
type Inclusion struct {
	LeafIndex  int64
	TreeSize   int64
	Proof      tlog.RecordProof
	Checkpoint string // the latest signed checkpoint, or cosigned one
}

// Inclusion returns the inclusion proof of an event in the latest tree;
// with cosigned, in the latest tree witnesses cosigned, whose checkpoint
// comes with their cosignatures. Errors: a *Refusal 404 when the event
// is in no leaf (not sealed yet, or not the tenant's), or, with
// cosigned, in no cosigned tree yet.
func (c Client) Inclusion(ctx context.Context, eventID string, cosigned bool) (Inclusion, error) {
	var in struct {
		LeafIndex  int64    `json:"leafIndex"`
		TreeSize   int64    `json:"treeSize"`
		Proof      []string `json:"proof"`
		Checkpoint string   `json:"checkpoint"`
	}
	path := "/api/log/proof?event=" + url.QueryEscape(eventID)
	if cosigned {
		path += "&cosigned=true"
	}
	if err := c.GetJSON(ctx, path, &in); err != nil {
		return Inclusion{}, err
	}
	proof, err := DecodeHashes(in.Proof)
	return Inclusion{LeafIndex: in.LeafIndex, TreeSize: in.TreeSize, Proof: proof, Checkpoint: in.Checkpoint}, err
}

// Consistency returns the proof that the tree of size to extends the
// tree of size from. Errors: a *Refusal when the service refuses it.
func (c Client) Consistency(ctx context.Context, from, to int64) (tlog.TreeProof, error) {
	var v struct {
		Proof []string `json:"proof"`
	}
	if err := c.GetJSON(ctx, fmt.Sprintf("/api/log/consistency?from=%d&to=%d", from, to), &v); err != nil {
		return nil, err
	}
	return DecodeHashes(v.Proof)
}

// DecodeHashes decodes hashes in standard base64, as the API and
// checkpoints write them.
func DecodeHashes(in []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(in))
	for i, p := range in {
		b, err := base64.StdEncoding.DecodeString(p)
		if err != nil || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("hash %d is no base64 SHA-256 hash", i)
		}
		copy(out[i][:], b)
	}
	return out, nil
}

// LogKeys returns the service's checkpoint keys (GET /api/log-key, public):
// the current one first, then those of before a rotation.
func (c Client) LogKeys(ctx context.Context) ([]string, error) {
	var out struct {
		VerifierKey string   `json:"verifierKey"`
		EarlierKeys []string `json:"earlierKeys"`
	}
	if err := c.GetJSON(ctx, "/api/log-key", &out); err != nil {
		return nil, err
	}
	return append([]string{out.VerifierKey}, out.EarlierKeys...), nil
}

// ReadTile reads a hash tile of the tenant's latest tree (GET
// /api/log/tile/<L>/<N>[.p/<W>], C2SP tlog-tiles of height 8).
func (c Client) ReadTile(ctx context.Context, t tlog.Tile) ([]byte, error) {
	return c.Get(ctx, "/api/log/"+strings.Replace(t.Path(), "tile/8/", "tile/", 1))
}
