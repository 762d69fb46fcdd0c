package webhook

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io"
	"maps"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/streaming"
)

// CaptureReport is what CheckCapture found.
type CaptureReport struct {
	Batches, Tests int
	// Events are the distinct leaves received, Repeats the leaves
	// received more than once (at least once: not a problem).
	Events, Repeats int
	// Covered is the log range [0, Covered) the batches cover without a
	// gap; LogSize the size of the latest checkpoint they carry.
	Covered, LogSize uint64
	// Proved are the events whose content is the leaf the signed tree
	// holds; Unprovable those that cannot be, being OCSF or masked.
	Proved, Unprovable int
	Problems           int
	// Latest is the latest checkpoint the batches carry, verified with
	// the log's key (nil without one), and LatestSigned its signed note.
	Latest       *vlog.Checkpoint
	LatestSigned []byte
}

// OK reports whether the capture holds the stream whole and unaltered.
func (r CaptureReport) OK() bool { return r.Problems == 0 }

// capture is one CheckCapture under way.
type capture struct {
	tenantID, streamID string
	out                func(string)
	rep                CaptureReport
	ranges             [][2]uint64
	leaves             map[uint64]*received
	latest             vlog.Checkpoint
}

// received is what came for one leaf: each distinct content, the first
// first (which one the log holds, prove says), with their SHA-256, and
// the format of the batch it came in.
type received struct {
	contents []json.RawMessage
	sums     [][32]byte
	format   string
}

func (c *capture) problem(format string, args ...any) {
	c.rep.Problems++
	c.out("PROBLEM " + fmt.Sprintf(format, args...))
}

// CheckCapture reads a webhook capture, the bodies of the batches a
// receiver kept (one JSON batch per line, in any order, repeats
// included), and proves it: every batch the tenant's and stream's; every
// checkpoint signed by logKeys (none: not checked) and covering its
// batch; every event inside its batch's range; a leaf received twice the
// same both times; the ranges joined from leaf 0 without a gap; and, when
// signed is given, every event in the event format that is not masked
// hashed to the leaf the latest checkpoint's tree holds at its index
// (signed returns the tree's leaf hashes, each checked against the
// checkpoint's root: tlog.TileHashReader over the log's tiles). It names
// each problem (out gets a line each). Errors: a line that is not a
// batch, or signed's.
func CheckCapture(r io.Reader, tenantID, streamID string, logKeys vlog.Keys, signed func(vlog.Checkpoint) tlog.HashReader, out func(string)) (CaptureReport, error) {
	c := &capture{tenantID: tenantID, streamID: streamID, out: out, leaves: map[uint64]*received{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var b streaming.Batch
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			return c.rep, audit.Errorf(audit.EINVALID, "line %d is not a batch: %v", n, err)
		}
		c.batch(n, b, logKeys)
	}
	if err := sc.Err(); err != nil {
		return c.rep, err
	}
	c.join()
	if c.rep.LogSize < c.rep.Covered && c.rep.Batches > 0 {
		c.problem("the batches reach leaf %d, past the latest checkpoint's %d leaves", c.rep.Covered, c.rep.LogSize)
	}
	if signed != nil && c.latest.Size > 0 {
		return c.rep, c.prove(signed(c.latest))
	}
	for _, i := range slices.Sorted(maps.Keys(c.leaves)) {
		if len(c.leaves[i].contents) > 1 {
			c.problem("leaf %d received again with another content", i)
		}
	}
	return c.rep, nil
}

// batch takes one batch of line n.
func (c *capture) batch(n int, b streaming.Batch, logKeys vlog.Keys) {
	if b.Test {
		c.rep.Tests++
		return
	}
	c.rep.Batches++
	if b.TenantID != c.tenantID || b.StreamID != c.streamID {
		c.problem("line %d: a batch of tenant %s, stream %s", n, b.TenantID, b.StreamID)
		return
	}
	c.checkpoint(n, b, logKeys)
	c.ranges = append(c.ranges, [2]uint64{b.From, b.To})
	next := b.From
	for _, e := range b.Events {
		if e.LeafIndex < next || e.LeafIndex >= b.To {
			c.problem("line %d: leaf %d out of order or outside the batch's [%d, %d)", n, e.LeafIndex, b.From, b.To)
			continue
		}
		next = e.LeafIndex + 1
		sum := sha256.Sum256(e.Event)
		r, ok := c.leaves[e.LeafIndex]
		if !ok {
			c.leaves[e.LeafIndex] = &received{contents: []json.RawMessage{e.Event}, sums: [][32]byte{sum}, format: b.Format}
			continue
		}
		c.rep.Repeats++
		if !slices.Contains(r.sums, sum) {
			r.contents, r.sums = append(r.contents, e.Event), append(r.sums, sum)
		}
	}
}

// checkpoint checks the batch's checkpoint and keeps the latest.
func (c *capture) checkpoint(n int, b streaming.Batch, logKeys vlog.Keys) {
	var cp vlog.Checkpoint
	var err error
	switch {
	case b.Checkpoint == "":
		c.problem("line %d: a batch without its checkpoint", n)
		return
	case logKeys.Len() > 0:
		cp, err = logKeys.Open([]byte(b.Checkpoint))
	default:
		cp, err = vlog.ParseCheckpoint(b.Checkpoint)
	}
	switch {
	case err != nil:
		c.problem("line %d: the checkpoint: %s", n, audit.ErrorMessage(err))
	case !strings.HasSuffix(cp.Origin, "/tenants/"+c.tenantID):
		c.problem("line %d: the checkpoint of another log, %s", n, cp.Origin)
	case uint64(cp.Size) < b.To:
		c.problem("line %d: the checkpoint's %d leaves do not cover the batch's [%d, %d)", n, cp.Size, b.From, b.To)
	case cp.Size > c.latest.Size:
		c.latest, c.rep.LogSize = cp, uint64(cp.Size)
		if logKeys.Len() > 0 {
			c.rep.Latest, c.rep.LatestSigned = &cp, []byte(b.Checkpoint)
		}
	}
}

// join joins the ranges from leaf 0 and names each gap.
func (c *capture) join() {
	slices.SortFunc(c.ranges, func(a, b [2]uint64) int { return int(a[0]) - int(b[0]) })
	var end uint64
	for _, r := range c.ranges {
		if r[0] > end {
			c.problem("leaves [%d, %d) are in no batch: a gap", end, r[0])
		}
		end = max(end, r[1])
	}
	c.rep.Covered, c.rep.Events = end, len(c.leaves)
}
