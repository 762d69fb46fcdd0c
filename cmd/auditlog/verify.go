package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/signing"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/streaming/s3stream"
)

// verifyArgs are the arguments of `auditlog verify`.
type verifyArgs struct {
	dir, bucket, tenant, prefix, keyDir, api, token, logKey string
	witnessKeys, witnessFrom, state                         string
	quorum                                                  int
	keyFiles, checkpoints                                   multiFlag
	opts                                                    periodicexport.Options
}

const verifyUsage = `Usage: auditlog verify (--dir <copy> | --bucket <bucket>) --tenant <uuid>
                       (--key <pem>… | --keys <dir> | --api <url> [--token <jwt>])
                       [--log-key <key> [--witness-key <keys> [--witness-quorum k]]] [--checkpoint <c>…] [--deep]
                       [--stream <id>]

Checks a tenant's periodic export offline: the signed digest chain with
keys you pinned (or the service's), every file against its digest, and,
with --api and --token, that every window the service delivered is there.
It prints one line per valid digest and per problem, and the checkpoint
to record; exit 1 when the export fails, 2 on a usage error. With
--stream, it checks that S3 stream of the tenant instead, as auditlog
stream check does.
`

// runVerify checks a tenant's periodic export, from a directory (a copy
// downloaded from the bucket) or the bucket itself. It trusts only what
// the copy under test cannot forge: public keys from the service's API or
// from files outside the copy, and, to prove the chain's end, the API's
// delivered windows or checkpoints recorded earlier. It prints where each
// trusted key came from, one line per valid digest and per problem, a
// summary and the checkpoint to record; it exits 1 when the verification
// fails and 2 on a usage error.
func runVerify(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var a verifyArgs
	var c Config
	b := newBinder("auditlog verify", getenv, stderr)
	b.fs.StringVar(&a.dir, "dir", "", "directory holding the export (a downloaded copy: the bucket's objects under their keys)")
	b.fs.StringVar(&a.bucket, "bucket", "", "or the S3 bucket holding it, on the AUDITLOG_S3_* server")
	b.fs.StringVar(&a.tenant, "tenant", "", "the tenant's id")
	b.fs.StringVar(&a.prefix, "prefix", "auditlog", "the key prefix the export was written under (AUDITLOG_PERIODIC_PREFIX)")
	b.fs.Var(&a.keyFiles, "key", "PEM file of an Ed25519 public key you pinned (repeatable), never one from the copy under test")
	b.fs.StringVar(&a.keyDir, "keys", "", "directory of PEM public keys you pinned (every *.pem in it), outside the copy under test")
	b.fs.StringVar(&a.api, "api", "", "the service's base URL: trust the keys of its GET /api/export-keys and, with --token, require every window its GET /api/audit-logs/periodic-exports lists as delivered")
	b.secret(&a.token, "token", "AUDITLOG_TOKEN", "a tenant admin's bearer token for --api's delivered windows")
	b.fs.StringVar(&a.logKey, "log-key", "", "the verifiable log's key you pinned (GET /api/log-key), or a file holding it: checks the log checkpoint each digest carries and, with --api and --token, the deliveries the tenant's log records (without it, --api's own key is trusted)")
	b.fs.StringVar(&a.witnessKeys, "witness-key", "", "witnesses' keys (cosignature/v1, as litewitness prints them), or files holding them, comma-separated: each digest's log checkpoint, and each logged delivery's proof, must carry their cosignatures (with --log-key or --api)")
	b.fs.IntVar(&a.quorum, "witness-quorum", 0, "how many of the --witness-key witnesses must have cosigned (default: all)")
	b.fs.StringVar(&a.witnessFrom, "witness-from", "", "when the witnesses began (RFC 3339, or a date): digests of windows that start before it need the log key only")
	b.fs.Var(&a.checkpoints, "checkpoint", "a checkpoint an earlier verify printed (<digest key> <signature>), or a file holding it: the chain must still hold it (repeatable)")
	b.fs.BoolVar(&a.opts.Deep, "deep", false, "also decompress every data file and check its content's SHA-256 and line count (an intact stored object already proves them)")
	a.bindState(b, getenv)
	var stream string
	b.fs.StringVar(&stream, "stream", "", "check this S3 stream of the tenant instead of its periodic export (as auditlog stream check; --prefix is then the stream's, auditlog-streams unless given)")
	b.s3(&c.Export)
	b.describe(stdout, verifyUsage, "Auth")
	if err := b.parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if stream != "" {
		prefixSet := false
		b.fs.Visit(func(f *flag.Flag) { prefixSet = prefixSet || f.Name == "prefix" })
		if !prefixSet {
			a.prefix = s3stream.DefaultPrefix
		}
		return checkStream(&a, c.Export, stream, stdout)
	}
	if err := a.check(); err != nil {
		return usageError{err}
	}
	ctx := context.Background()
	keys, err := a.trustedKeys(ctx, stdout)
	if err != nil {
		return err
	}
	if a.opts.LogKey, err = a.trustedLogKey(ctx, stdout); err != nil {
		return err
	}
	if a.opts.Expected, err = a.expected(ctx); err != nil {
		return err
	}
	from, err := a.source(ctx, c.Export)
	if err != nil {
		return err
	}
	rep, err := periodicexport.Verify(ctx, from, strings.Trim(a.prefix, "/"), audit.NormalizeTenantID(a.tenant), keys, a.opts,
		func(line string) { fmt.Fprintln(stdout, line) })
	if err != nil {
		return err
	}
	if rep.Last != nil {
		fmt.Fprintf(stdout, "checkpoint: %s\n", rep.Last)
	}
	rolled, err := a.printRolledBack(ctx, a.opts.LogKey, rep.LastLog, rep.LastLogSigned, stdout)
	if err != nil {
		return err
	}
	if problems := rep.Problems + rolled; problems > 0 {
		return fmt.Errorf("verification failed: %s", plural(problems, "problem"))
	}
	return nil
}

// bindState binds --state, where the largest log checkpoint verified of
// each log is kept (as log verify keeps it).
func (a *verifyArgs) bindState(b *binder, getenv func(string) string) {
	b.str(&a.state, "state", "AUDITLOG_VERIFY_STATE", defaultState(getenv),
		"directory where the largest log checkpoint verified of each log is kept, to refuse a rollback (default <user cache>/auditlog/verified); none keeps nothing")
}

// check refuses arguments that cannot make a verification.
func (a *verifyArgs) check() error {
	switch {
	case (a.dir == "") == (a.bucket == ""):
		return errors.New("give one of --dir or --bucket")
	case !audit.ValidUUID(a.tenant):
		return fmt.Errorf("--tenant %q: want the tenant's UUID", a.tenant)
	case len(a.keyFiles) == 0 && a.keyDir == "" && a.api == "":
		return errors.New("no public key to trust: give --api (the service's published keys) or --key/--keys (keys you pinned)")
	case a.token != "" && a.api == "":
		return errors.New("--token goes with --api")
	case a.witnessKeys != "" && a.logKey == "" && a.api == "":
		return errors.New("--witness-key goes with --log-key or --api: the witnesses cosign the log's checkpoints")
	case a.witnessFrom != "" && a.witnessKeys == "":
		return errors.New("--witness-from goes with --witness-key")
	}
	if a.witnessFrom != "" {
		from, err := parseDateOrTime(a.witnessFrom)
		if err != nil {
			return fmt.Errorf("--witness-from %q: want RFC 3339 or YYYY-MM-DD", a.witnessFrom)
		}
		a.opts.WitnessFrom = from
	}
	if a.dir != "" {
		if st, err := os.Stat(a.dir); err != nil || !st.IsDir() {
			return fmt.Errorf("--dir %s: no such directory", a.dir)
		}
	}
	if a.keyDir != "" {
		found, err := filepath.Glob(filepath.Join(a.keyDir, "*.pem"))
		if st, serr := os.Stat(a.keyDir); serr != nil || !st.IsDir() || err != nil {
			return fmt.Errorf("--keys %s: no such directory", a.keyDir)
		}
		if len(found) == 0 {
			return fmt.Errorf("--keys %s holds no *.pem file", a.keyDir)
		}
		a.keyFiles = append(a.keyFiles, found...)
	}
	for _, f := range a.keyFiles {
		if a.dir != "" && inside(f, a.dir) {
			return fmt.Errorf("--key %s lies inside the copy under test (%s): a key that comes with the files proves nothing, since whoever altered them could have replaced it too. Pin keys from the service (--api, or GET /api/export-keys saved earlier) or from a fingerprint you recorded", f, a.dir)
		}
	}
	return nil
}

// trustedKeys reads the keys to trust and says where each came from.
func (a *verifyArgs) trustedKeys(ctx context.Context, out io.Writer) (map[string]ed25519.PublicKey, error) {
	keys := map[string]ed25519.PublicKey{}
	if a.api != "" {
		got, err := periodicexport.API{Base: a.api}.Keys(ctx)
		if err != nil {
			return nil, err
		}
		for id, k := range got {
			keys[id] = k
			fmt.Fprintf(out, "trusting key %s (sha256 %s) from %s/api/export-keys\n", id, signing.KeyFingerprint(k), a.api)
		}
	}
	for _, f := range a.keyFiles {
		k, err := periodicexport.LoadPublicKey(f)
		if err != nil {
			return nil, usageError{fmt.Errorf("--key: %w", err)}
		}
		keys[signing.KeyID(k)] = k
		fmt.Fprintf(out, "trusting key %s (sha256 %s) from %s\n", signing.KeyID(k), signing.KeyFingerprint(k), f)
	}
	return keys, nil
}

// expected is what the chain must hold: the API's delivered windows and
// the checkpoints given.
func (a *verifyArgs) expected(ctx context.Context) ([]periodicexport.Checkpoint, error) {
	var exp []periodicexport.Checkpoint
	for _, c := range a.checkpoints {
		text, source := c, "checkpoint "+c
		if raw, err := os.ReadFile(c); err == nil {
			text, source = strings.TrimSpace(string(raw)), "checkpoint file "+c
		}
		cp, err := periodicexport.ParseCheckpoint(strings.TrimPrefix(text, "checkpoint: "), source)
		if err != nil {
			return nil, usageError{fmt.Errorf("--checkpoint: %s", audit.ErrorMessage(err))}
		}
		exp = append(exp, cp)
	}
	if a.api != "" && a.token != "" {
		api := periodicexport.API{Base: a.api, Token: a.token}
		got, err := api.Delivered(ctx)
		if err != nil {
			return nil, err
		}
		exp = append(exp, got...)
		if a.opts.LogKey.Len() > 0 {
			logged, err := api.LoggedDeliveries(ctx, audit.NormalizeTenantID(a.tenant), a.opts.LogKey)
			if err != nil {
				return nil, err
			}
			exp = append(exp, logged...)
		}
	}
	return exp, nil
}

// trustedLogKey is the log key: --log-key, else the service's (--api),
// else none (the digests' log checkpoints are then not checked); with
// --witness-key, the policy of the key and the witnesses.
func (a *verifyArgs) trustedLogKey(ctx context.Context, out io.Writer) (vlog.Keys, error) {
	keys, err := a.logKeyAlone(ctx, out)
	if err != nil || keys.Len() == 0 || a.witnessKeys == "" {
		return keys, err
	}
	if keys, err = witnessPolicy(keys, a.witnessKeys, a.quorum); err != nil {
		return keys, usageError{err}
	}
	fmt.Fprintf(out, "requiring %s\n", keys.Policy())
	return keys, nil
}

func (a *verifyArgs) logKeyAlone(ctx context.Context, out io.Writer) (vlog.Keys, error) {
	switch {
	case a.logKey != "":
		v, err := logKeys("--log-key", a.logKey)
		if err != nil {
			return vlog.Keys{}, usageError{err}
		}
		fmt.Fprintf(out, "trusting log key %s (pinned)\n", v.Name())
		return v, nil
	case a.api != "":
		v, err := periodicexport.API{Base: a.api}.LogKeys(ctx)
		if err != nil && a.witnessKeys != "" {
			return vlog.Keys{}, fmt.Errorf("no log key from %s/api/log-key for --witness-key: %w", a.api, err)
		}
		if err != nil {
			fmt.Fprintf(out, "no log key from %s/api/log-key (%v): the digests' log checkpoints are not checked\n", a.api, err)
			return vlog.Keys{}, nil
		}
		fmt.Fprintf(out, "trusting log key %s from %s/api/log-key\n", v.Name(), a.api)
		return v, nil
	}
	return vlog.Keys{}, nil
}

// source opens the copy under test.
func (a *verifyArgs) source(ctx context.Context, ec ExportConfig) (blob.Store, error) {
	if a.bucket == "" {
		return localfs.Dir{Root: a.dir}, nil
	}
	f, err := s3.Open(ctx, s3.Config{Endpoint: ec.S3Endpoint, Region: ec.S3Region, Bucket: a.bucket, AccessKey: ec.S3AccessKey,
		SecretKey: ec.S3SecretKey, PathStyle: ec.S3PathStyle})
	if err != nil {
		return nil, fmt.Errorf("--bucket %s: %w", a.bucket, err)
	}
	return f, nil
}

// inside reports whether path lies in dir (both made absolute, links
// resolved where they exist).
func inside(path, dir string) bool {
	abs := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		a, _ := filepath.Abs(p)
		return a
	}
	rel, err := filepath.Rel(abs(dir), abs(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// usageError is an error in how a command was called: exit status 2.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseDateOrTime reads an RFC 3339 timestamp (audit.ParseTimestamp) or
// a date alone, YYYY-MM-DD, as its midnight UTC.
func parseDateOrTime(s string) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, nil
	}
	ts, err := audit.ParseTimestamp(s)
	return ts.Time, err
}
