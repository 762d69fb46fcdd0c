package periodicexport

import (
	"bytes"
	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit/periodic"

	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/auditlog/auditlog/audit"
)

// Report sums up a verification: only what was verified counts (a
// missing or altered file is a problem, never a verified file).
type Report struct {
	Digests, Files int
	Events         int64
	Problems       int
	// EndProven: the chain was checked against Options.Expected, so a
	// cut-off end would have been a problem.
	EndProven bool
	// Last is the chain's last digest: the checkpoint to record and give
	// to a later verification.
	Last *Checkpoint
	// LastLog is the last log checkpoint the chain's digests carry (with
	// Options.LogKey): a witness's later checkpoint must extend it.
	LastLog *vlog.Checkpoint
	// LastLogSigned is LastLog's signed note, as the digest carries it.
	LastLogSigned []byte
}

// Checkpoint names one digest of a chain by its key and signature, as a
// tenant records it (from a verification, or the API's delivered
// windows) to check a later copy against: a copy whose chain lacks it was
// cut off, one with another signature there was rewritten.
type Checkpoint struct {
	Key       string
	Signature string // "" when the source gives only the key
	// Source says where it came from, for the report.
	Source string
}

// String is the checkpoint as verify prints it and --checkpoint reads it.
func (c Checkpoint) String() string { return c.Key + " " + c.Signature }

// ParseCheckpoint reads "<digest key> <signature>"; EINVALID otherwise.
func ParseCheckpoint(s, source string) (Checkpoint, error) {
	key, sig, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok || !strings.Contains(key, "/digest/") || !strings.HasSuffix(key, ".json") || strings.TrimSpace(sig) == "" {
		return Checkpoint{}, audit.Errorf(audit.EINVALID, "%q is not a checkpoint: want the line verify printed, <digest key> <signature>", s)
	}
	return Checkpoint{Key: key, Signature: strings.TrimSpace(sig), Source: source}, nil
}

// OK reports whether nothing was wrong.
func (r Report) OK() bool { return r.Problems == 0 }

// verifier walks one tenant's chain.
type verifier struct {
	ctx    context.Context
	b      blob.Store
	prefix string
	tenant string
	keys   map[string]ed25519.PublicKey
	opts   Options
	out    func(string)
	rep    Report
	// digests by key, as read and signature-checked.
	digests map[string]*periodic.Digest
	listed  map[string]bool
}

func (v *verifier) problem(format string, args ...any) {
	v.rep.Problems++
	v.out(fmt.Sprintf(format, args...))
}

// Options of a verification.
type Options struct {
	// Deep decompresses every data file and checks the SHA-256 and line
	// count of its content even where the digest gives the hash of the
	// stored object (format 2), which alone proves an intact file: it
	// checks the writer's own arithmetic, at a few times the cost.
	Deep bool
	// Expected are digests the chain must hold, from a source the
	// exporter cannot rewrite afterwards: the tenant API's delivered
	// windows, the deliveries recorded in the tenant's verifiable log, or
	// a checkpoint recorded earlier. Without them a chain is checked
	// against itself only, and its end cannot be proven.
	Expected []Checkpoint
	// LogKey, when set, verifies the log checkpoint each digest carries
	// (version 3): signed by it, of the tenant's log, never smaller than
	// the one of the digest before; with witnesses (a policy,
	// vlog.Keys.WithWitnesses), cosigned by the quorum of them.
	LogKey vlog.Keys
	// WitnessFrom, with a policy, is when the deployment's witnesses
	// began: the checkpoints of digests of windows that start before it
	// need the log key only (no witness cosigned them then).
	WitnessFrom time.Time
}

// Verify checks a tenant's periodic export in b (a bucket, or a directory
// a customer downloaded) with nothing but the public keys: every digest's
// signature and place in the chain, every file's SHA-256 and count, and
// that windows follow each other without gaps. It writes one plain line
// per valid digest ("ok …") and per problem (ALTERED, MISSING, UNLISTED,
// MALFORMED, BAD SIGNATURE, UNKNOWN KEY, REORDERED, BROKEN LINK, FORK,
// UNCHAINED, GAP, TRUNCATED), naming the object key, then returns the
// report. An error means the bucket could not be read at all.
func Verify(ctx context.Context, b blob.Store, prefix, tenant string, keys map[string]ed25519.PublicKey, opts Options, out func(string)) (Report, error) {
	v := &verifier{ctx: ctx, b: b, prefix: prefix, tenant: tenant, keys: keys, opts: opts, out: out, digests: map[string]*periodic.Digest{}, listed: map[string]bool{}}
	root := prefix + "/" + tenant + "/"
	all, err := b.List(ctx, root)
	if err != nil {
		return v.rep, err
	}
	var digestKeys, dataKeys []string
	for _, k := range all {
		switch {
		case strings.HasPrefix(k, root+"digest/"):
			digestKeys = append(digestKeys, k)
		case strings.HasSuffix(k, ".ndjson.gz"):
			dataKeys = append(dataKeys, k)
		}
	}
	for _, k := range digestKeys {
		v.readDigest(k)
	}
	chain := v.walk()
	for _, k := range chain {
		v.checkFiles(k)
	}
	v.logCheckpoints(chain)
	v.gaps()
	for _, k := range dataKeys {
		if !v.listed[k] {
			v.problem("UNLISTED %s: a data file that no digest vouches for", k)
		}
	}
	v.expected(opts.Expected)
	if len(chain) > 0 {
		last := v.digests[chain[len(chain)-1]]
		v.rep.Last = &Checkpoint{Key: chain[len(chain)-1], Signature: last.Signature}
	}
	out(fmt.Sprintf("verified %d digests, %d files, %d events of tenant %s: %s", v.rep.Digests, v.rep.Files, v.rep.Events, tenant, v.verdict()))
	return v.rep, nil
}

func (v *verifier) verdict() string {
	switch {
	case v.rep.Problems == 1:
		return "1 problem"
	case !v.rep.OK():
		return fmt.Sprintf("%d problems", v.rep.Problems)
	case !v.rep.EndProven:
		return "all valid, as far as the chain goes (whether windows after its last were cut off is not proven: give --api or --checkpoint)"
	}
	return "all valid"
}

// expected checks that every expected digest is in the chain with its
// signature: one missing means the copy was cut off (TRUNCATED) or had
// that digest removed, another signature means it was rewritten (FORK).
func (v *verifier) expected(exp []Checkpoint) {
	v.rep.EndProven = len(exp) > 0
	for _, c := range exp {
		d, ok := v.digests[c.Key]
		switch {
		case !ok:
			v.problem("TRUNCATED %s: %s says it was delivered, and this copy has no valid digest there", c.Key, c.Source)
		case c.Signature != "" && d.Signature != c.Signature:
			v.problem("FORK %s: its signature is not the one %s recorded", c.Key, c.Source)
		}
	}
}

// readDigest reads, checks and keeps the digest stored under k.
func (v *verifier) readDigest(k string) {
	raw, err := v.read(k)
	if err != nil {
		v.problem("MISSING %s: %v", k, err)
		return
	}
	var d periodic.Digest
	if err := json.Unmarshal(raw, &d); err != nil || d.Version < 1 || d.Version > periodic.DigestVersion {
		v.problem("MALFORMED %s: not a digest of version 1 to %d", k, periodic.DigestVersion)
		return
	}
	if err := d.Verify(v.keys); err != nil {
		kind := "BAD SIGNATURE"
		if _, known := v.keys[d.KeyID]; !known {
			kind = "UNKNOWN KEY"
		}
		v.problem("%s %s: %s", kind, k, audit.ErrorMessage(err))
		return
	}
	if want := periodic.DigestKey(v.prefix, d.TenantID, d.WindowStart.Time, d.WindowEnd.Time, d.Late); want != k || d.TenantID != v.tenant {
		v.problem("REORDERED %s: it is the signed digest of %s", k, want)
		return
	}
	v.digests[k] = &d
}

// walk follows the chain from its first digest and returns the keys in
// chain order, reporting every break.
func (v *verifier) walk() []string {
	next := map[string]string{}
	var first []string
	for k, d := range v.digests {
		if d.First && d.PreviousKey == "" {
			first = append(first, k)
			continue
		}
		if other, dup := next[d.PreviousKey]; dup {
			v.problem("FORK %s: %s and %s both follow it", d.PreviousKey, other, k)
			continue
		}
		next[d.PreviousKey] = k
		if _, ok := v.digests[d.PreviousKey]; !ok {
			v.problem("MISSING %s: the digest before %s is not there (or not valid)", d.PreviousKey, k)
		}
	}
	sort.Strings(first)
	if len(first) != 1 {
		v.problem("MISSING the first digest of the chain: %d digests say they are first %v", len(first), first)
		if len(first) == 0 {
			return nil
		}
	}
	var chain []string
	seen := map[string]bool{}
	for k := first[0]; k != "" && !seen[k]; k = next[k] {
		seen[k] = true
		d := v.digests[k]
		if len(chain) > 0 && d.PreviousSignature != v.digests[chain[len(chain)-1]].Signature {
			v.problem("BROKEN LINK %s: its previous signature is not that of %s", k, chain[len(chain)-1])
		}
		chain = append(chain, k)
	}
	var off []string
	for k := range v.digests {
		if !seen[k] {
			off = append(off, k)
		}
	}
	sort.Strings(off)
	for _, k := range off {
		v.problem("UNCHAINED %s: valid, but not reachable from the first digest", k)
	}
	return chain
}

// checkFiles checks each file of the digest at k.
func (v *verifier) checkFiles(k string) {
	d := v.digests[k]
	bad := v.rep.Problems
	var events int64
	for _, f := range d.Files {
		v.listed[f.Key] = true
		err := v.checkFile(f)
		switch {
		case audit.ErrorCode(err) == audit.ENOTFOUND:
			v.problem("MISSING %s: listed by %s", f.Key, k)
		case err != nil:
			v.problem("ALTERED %s (listed by %s): %v", f.Key, k, err)
		default:
			events += f.Count
			v.rep.Files++
		}
	}
	if v.rep.Problems == bad {
		v.rep.Digests++
		v.rep.Events += events
		v.out(fmt.Sprintf("ok %s: window %s to %s%s, %d files, %d events, key %s", k, d.WindowStart.Format(audit.TimestampLayout),
			d.WindowEnd.Format(audit.TimestampLayout), lateNote(d.Late), len(d.Files), events, d.KeyID))
	}
}

func lateNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (late file %d)", n)
}

// checkFile checks one data file against its digest entry. Where the
// digest gives the stored object's hash (format 2), the object is read
// once and hashed, as sha256sum would: an intact object is byte for byte
// the one whose content the digest also vouches for. Otherwise (a format
// 1 digest, a deep verification, or an object that differs, tampered
// with or only recompressed) its content is decompressed and its SHA-256
// and line count compared; an equal content passes.
func (v *verifier) checkFile(f periodic.DigestFile) error {
	if f.ObjectSHA256 != "" && !v.opts.Deep {
		sum, size, err := v.hashObject(f.Key)
		if err != nil || sum == f.ObjectSHA256 && size == f.ObjectSize {
			return err
		}
	}
	sum, n, err := v.hashFile(f.Key)
	if err == nil && (sum != f.SHA256 || n != f.Count) {
		err = fmt.Errorf("content sha256 %s and %d events, the digest says %s and %d", sum, n, f.SHA256, f.Count)
	}
	return err
}

// hashObject returns the SHA-256 and size of the object as stored.
func (v *verifier) hashObject(key string) (string, int64, error) {
	r, err := v.b.Open(v.ctx, key)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	h := sha256.New()
	// Read in large blocks (io.Copy would take the file's own 32 KiB
	// WriteTo).
	n, err := io.CopyBuffer(h, struct{ io.Reader }{r}, make([]byte, 256<<10))
	if err != nil {
		return "", 0, fmt.Errorf("unreadable: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// hashFile returns the SHA-256 and line count of a data file's
// uncompressed content, streaming.
func (v *verifier) hashFile(key string) (string, int64, error) {
	r, err := v.b.Open(v.ctx, key)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(r, 256<<10))
	if err != nil {
		return "", 0, fmt.Errorf("not gzip: %v", err)
	}
	h := sha256.New()
	lines := &lineCounter{w: h}
	if _, err := io.Copy(lines, zr); err != nil {
		return "", 0, fmt.Errorf("unreadable: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil)), lines.n, nil
}

type lineCounter struct {
	w io.Writer
	n int64
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += int64(bytes.Count(p, []byte{'\n'}))
	return c.w.Write(p)
}

// gaps reports windows that do not follow each other: every window's
// start is the previous window's end. Every valid digest counts, chained
// or not, so a window deleted from the middle is a GAP as well as a
// break in the chain.
func (v *verifier) gaps() {
	var windows []*periodic.Digest
	for _, d := range v.digests {
		if d.Late == 0 {
			windows = append(windows, d)
		}
	}
	sort.Slice(windows, func(i, j int) bool { return windows[i].WindowStart.Before(windows[j].WindowStart.Time) })
	for i := 1; i < len(windows); i++ {
		if prev, cur := windows[i-1], windows[i]; prev.WindowEnd.Before(cur.WindowStart.Time) {
			v.problem("GAP between %s and %s: no window covers it", prev.WindowEnd.Format(audit.TimestampLayout), cur.WindowStart.Format(audit.TimestampLayout))
		}
	}
}

func (v *verifier) read(k string) ([]byte, error) {
	r, err := v.b.Open(v.ctx, k)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 16<<20))
}

// logCheckpoints checks, with Options.LogKey, the log checkpoint each
// digest of the chain carries: signed by the key, of the tenant's log,
// and never smaller than the one before it (a log that went back is a
// rollback or a fork). It prints the last one.
func (v *verifier) logCheckpoints(chain []string) {
	if v.opts.LogKey.Len() == 0 {
		return
	}
	origin := vlog.Origin(v.opts.LogKey.Name(), v.tenant)
	var last *vlog.Checkpoint
	var lastSigned []byte
	for _, k := range chain {
		d := v.digests[k]
		if d.LogCheckpoint == "" {
			continue
		}
		keys := v.opts.LogKey
		if d.WindowStart.Before(v.opts.WitnessFrom) {
			keys = keys.LogOnly()
		}
		cp, err := keys.Open([]byte(d.LogCheckpoint))
		switch {
		case err != nil:
			v.problem("LOGCHECKPOINT %s: its log checkpoint does not verify with %s: %v", k, keys.Policy(), err)
			continue
		case cp.Origin != origin:
			v.problem("LOGCHECKPOINT %s: its log checkpoint is of %s, not of %s", k, cp.Origin, origin)
			continue
		case last != nil && cp.Size < last.Size:
			v.problem("LOGCHECKPOINT %s: its log checkpoint (%d leaves) is smaller than the one before it (%d): the log went back", k, cp.Size, last.Size)
			continue
		}
		last, lastSigned = &cp, []byte(d.LogCheckpoint)
	}
	if last != nil {
		v.rep.LastLog, v.rep.LastLogSigned = last, lastSigned
		v.out(fmt.Sprintf("log checkpoint: the chain's last digest is covered by %s at %d leaves (root %s): a later checkpoint of yours (auditlog witness) must extend it", last.Origin, last.Size, last.Root))
	}
}
