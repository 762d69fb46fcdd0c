package s3stream

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/vlog"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// Report is what Check found.
type Report struct {
	Manifests, Objects int
	Events             int64
	// Covered is the log range [0, Covered) the objects cover without a
	// gap; LogSize the size of the latest manifest's checkpoint.
	Covered, LogSize uint64
	Problems         int
	// Latest is the latest manifest's checkpoint, verified with the log's
	// key (nil without one), and LatestSigned its signed note.
	Latest       *vlog.Checkpoint
	LatestSigned []byte
}

// OK reports whether the bucket holds what its manifests vouch for,
// without a gap.
func (r Report) OK() bool { return r.Problems == 0 }

// checker is one Check under way.
type checker struct {
	ctx    context.Context
	b      blob.Store
	keys   map[string]ed25519.PublicKey
	out    func(string)
	rep    Report
	ranges []stream.Object
	listed map[string]bool
}

func (c *checker) problem(format string, args ...any) {
	c.rep.Problems++
	c.out("PROBLEM " + fmt.Sprintf(format, args...))
}

// Check reads back what an S3 stream wrote under prefix for a tenant's
// stream: every hour's manifest signed by one of keys, every object it
// lists present, with its hash, its count of events and their leaf
// indexes inside its range; the ranges joined from leaf 0 without a gap;
// and the latest checkpoint signed by the log's keys (none: not checked)
// and covering them. It names each missing or
// altered object, each gap and each bad signature (out gets a line
// each), and says how far the objects reach and the log was.
func Check(ctx context.Context, b blob.Store, prefix, tenantID, streamID string, keys map[string]ed25519.PublicKey, logKeys vlog.Keys, out func(string)) (Report, error) {
	c := &checker{ctx: ctx, b: b, keys: keys, out: out, listed: map[string]bool{}}
	root := path.Join(prefix, tenantID, streamID) + "/"
	all, err := b.List(ctx, root)
	if err != nil {
		return c.rep, err
	}
	var last *stream.Manifest
	for _, k := range all {
		if !strings.HasSuffix(k, "/manifest.json") {
			continue
		}
		m, err := ReadManifest(ctx, b, k)
		if err != nil {
			c.problem("%s: %s", k, audit.ErrorMessage(err))
			continue
		}
		c.manifest(k, m, tenantID, streamID)
		last = m
	}
	for _, k := range all {
		if strings.HasSuffix(k, ".ndjson.gz") && !c.listed[k] {
			c.out("NOTE " + k + ": in no manifest (a write its manifest never recorded; its batch was sent again)")
		}
	}
	c.coverage()
	if last != nil {
		c.checkpoint(last.Checkpoint, logKeys)
	} else {
		c.problem("no manifest under %s", root)
	}
	return c.rep, nil
}

// manifest checks one manifest and its objects.
func (c *checker) manifest(key string, m *stream.Manifest, tenantID, streamID string) {
	c.rep.Manifests++
	if err := m.Verify(c.keys); err != nil {
		c.problem("%s: %s", key, audit.ErrorMessage(err))
		return
	}
	if m.TenantID != tenantID || m.StreamID != streamID {
		c.problem("%s: the manifest of tenant %s, stream %s", key, m.TenantID, m.StreamID)
		return
	}
	for _, o := range m.Objects {
		c.ranges = append(c.ranges, o)
		if o.Key == "" {
			continue
		}
		c.listed[o.Key] = true
		c.object(o)
	}
}

// object checks one listed object: present, its hash, its events.
func (c *checker) object(o stream.Object) {
	c.rep.Objects++
	r, err := c.b.Open(c.ctx, o.Key)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		c.problem("%s: missing (leaves [%d, %d), %d events)", o.Key, o.From, o.To, o.Count)
		return
	}
	if err != nil {
		c.problem("%s: %s", o.Key, audit.ErrorMessage(err))
		return
	}
	defer r.Close()
	raw, err := io.ReadAll(r)
	if err != nil {
		c.problem("%s: %v", o.Key, err)
		return
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != o.SHA256 {
		c.problem("%s: altered (its SHA-256 is %x, the manifest says %s)", o.Key, sum, o.SHA256)
		return
	}
	n, err := countEntries(raw, o)
	if err != nil || n != o.Count {
		c.problem("%s: %d events, the manifest says %d: %v", o.Key, n, o.Count, err)
		return
	}
	c.rep.Events += int64(n)
}

// countEntries reads a gzip NDJSON object, each line's leaf index rising
// inside the object's range.
func countEntries(raw []byte, o stream.Object) (int, error) {
	zr, err := gzip.NewReader(strings.NewReader(string(raw)))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	n, next := 0, o.From
	for sc.Scan() {
		var e struct {
			LeafIndex *uint64 `json:"leafIndex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.LeafIndex == nil {
			return n, fmt.Errorf("line %d is no entry", n+1)
		}
		if *e.LeafIndex < next || *e.LeafIndex >= o.To {
			return n, fmt.Errorf("leaf %d out of order or outside [%d, %d)", *e.LeafIndex, o.From, o.To)
		}
		next, n = *e.LeafIndex+1, n+1
	}
	return n, sc.Err()
}

// coverage joins the ranges from leaf 0: a range that starts past the
// end reached so far is a gap (a repeat, after a replay, is none).
func (c *checker) coverage() {
	slices.SortFunc(c.ranges, func(a, b stream.Object) int { return cmp.Compare(a.From, b.From) })
	end := uint64(0)
	for _, r := range c.ranges {
		if r.From > end {
			c.problem("gap: leaves [%d, %d) are in no object", end, r.From)
		}
		end = max(end, r.To)
	}
	c.rep.Covered = end
}

// checkpoint checks the latest manifest's checkpoint: signed by the
// log's key, and covering what the objects cover.
func (c *checker) checkpoint(text string, logKeys vlog.Keys) {
	var cp vlog.Checkpoint
	var err error
	if logKeys.Len() > 0 {
		cp, err = logKeys.Open([]byte(text))
	} else {
		cp, err = vlog.ParseCheckpoint(text)
	}
	if err != nil {
		c.problem("the latest checkpoint: %s", audit.ErrorMessage(err))
		return
	}
	c.rep.LogSize = uint64(cp.Size)
	if logKeys.Len() > 0 {
		c.rep.Latest, c.rep.LatestSigned = &cp, []byte(text)
	}
	if c.rep.LogSize < c.rep.Covered {
		c.problem("the objects reach leaf %d, past the checkpoint's %d leaves", c.rep.Covered, cp.Size)
	}
}
