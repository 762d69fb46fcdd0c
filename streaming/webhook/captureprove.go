package webhook

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/vlog"
	"slices"
	"strings"

	"github.com/auditlog/auditlog/audit/stream"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// prove hashes each provable event and compares it with the leaf the
// signed tree holds at its index, a tile of leaves at a time.
func (c *capture) prove(signed tlog.HashReader) error {
	var idx []uint64
	for i := range c.leaves {
		if i < uint64(c.latest.Size) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	for start := 0; start < len(idx); start += 256 {
		chunk := idx[start:min(start+256, len(idx))]
		var want []int64
		var hashes [][2]tlog.Hash
		var leaves []uint64
		for _, i := range chunk {
			for _, raw := range c.leaves[i].contents {
				h, ok := c.leafHashes(raw, c.leaves[i].format)
				if !ok {
					c.rep.Unprovable++
					continue
				}
				want, hashes, leaves = append(want, tlog.StoredHashIndex(0, int64(i))), append(hashes, h), append(leaves, i)
			}
		}
		if len(want) == 0 {
			continue
		}
		got, err := signed.ReadHashes(want)
		if err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "reading the signed tree's leaves")
		}
		for k, h := range got {
			if h != hashes[k][0] && h != hashes[k][1] {
				c.problem("leaf %d: the event received is not the one the log holds (altered)", leaves[k])
				continue
			}
			c.rep.Proved++
		}
	}
	return nil
}

// leafHashes are the leaf hashes (both canonical encodings) of an event
// received, when it can be proved: in the event format, and not masked.
func (c *capture) leafHashes(raw json.RawMessage, format string) ([2]tlog.Hash, bool) {
	if format != stream.FormatEvent || masked(raw) {
		return [2]tlog.Hash{}, false
	}
	var e audit.Event
	if json.Unmarshal(raw, &e) != nil {
		return [2]tlog.Hash{}, false
	}
	return vlog.LeafHashes(e), true
}

// masked reports whether an event's actor was masked by its stream: a
// field hashed (hmac-sha256:…) or dropped.
func masked(raw json.RawMessage) bool {
	var ev struct {
		Actor map[string]*string `json:"actor"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		return true
	}
	for _, k := range []string{"id", "email", "ip", "userAgent"} {
		if v, ok := ev.Actor[k]; !ok || v == nil || strings.HasPrefix(*v, stream.MaskedPrefix) {
			return true
		}
	}
	return false
}
