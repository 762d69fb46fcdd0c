package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/logapi"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/streaming/s3stream"
	"github.com/auditlog/auditlog/streaming/webhook"
)

const streamCheckUsage = `Usage: auditlog stream check (--bucket <bucket> | --dir <copy>) --tenant <uuid> --stream <id>
                             (--key <pem>… | --api <url>) [--log-key <key>] [--prefix auditlog-streams]
       auditlog stream check --capture <file> --tenant <uuid> --stream <id>
                             (--log-key <key> | --api <url>) [--token <jwt>]

Reads back what an S3 stream wrote: every hour's manifest signed by a key
you pinned (or the service's), every object it lists present with its
hash and count, the log ranges joined from leaf 0 without a gap, and the
latest checkpoint signed by the log's key. With --capture, what a webhook
received (the request bodies, one batch per line): the checkpoints, the
ranges without a gap, repeats alike, and, with --api and --token, each
event against the leaf the signed tree holds. One line per problem (a
missing or altered object or event, a gap, a bad signature) and a summary;
exit 1 when a problem is found, 3 when the check could not be made (the
service or the bucket out of reach, a file unreadable), 2 on a usage
error. Reading the service's API, it slows down at its rate limit.
`

// runStreamCheck is auditlog stream check.
func runStreamCheck(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var a verifyArgs
	var c Config
	var stream, capture string
	b := newBinder("auditlog stream check", getenv, stderr)
	b.fs.StringVar(&capture, "capture", "", "a webhook capture: the bodies of the batches a receiver kept, one per line")
	b.secret(&a.token, "token", "AUDITLOG_TOKEN", "a tenant admin's bearer token: with --api and --capture, the log's tiles prove each event")
	b.fs.StringVar(&a.dir, "dir", "", "directory holding a copy of the bucket's objects under their keys")
	b.fs.StringVar(&a.bucket, "bucket", "", "or the stream's S3 bucket, on the AUDITLOG_S3_* server")
	b.fs.StringVar(&a.tenant, "tenant", "", "the tenant's id")
	b.fs.StringVar(&stream, "stream", "", "the stream's id")
	b.fs.StringVar(&a.prefix, "prefix", s3stream.DefaultPrefix, "the stream's key prefix (its destination.prefix)")
	b.fs.Var(&a.keyFiles, "key", "PEM file of the deployment's Ed25519 public key you pinned (GET /api/export-keys; repeatable)")
	b.fs.StringVar(&a.api, "api", "", "the service's base URL: trust the keys of its GET /api/export-keys, and its log key unless --log-key")
	b.fs.StringVar(&a.logKey, "log-key", "", "the verifiable log's key you pinned (GET /api/log-key), or a file holding it: checks the manifests' checkpoint")
	a.bindState(b, getenv)
	b.s3(&c.Export)
	b.describe(stdout, streamCheckUsage)
	if err := b.parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	var err error
	if capture != "" {
		err = checkCapture(&a, capture, stream, stdout)
	} else {
		err = checkStream(&a, c.Export, stream, stdout)
	}
	if err != nil && !errors.Is(err, errCheckFailed) && !errors.As(err, new(usageError)) {
		return fmt.Errorf("%w: %w", errCouldNotCheck, err)
	}
	return err
}

// errCheckFailed: the check found a problem (exit 1); errCouldNotCheck:
// it could not be made (exit 3).
var (
	errCheckFailed   = errors.New("check failed")
	errCouldNotCheck = errors.New("could not check")
)

// coverage is the summary's part on the ranges: "without a gap" only
// when no problem was printed above it.
func coverage(covered uint64, problems int) string {
	if problems == 0 {
		return fmt.Sprintf("leaves [0, %d) covered without a gap", covered)
	}
	return fmt.Sprintf("batches up to leaf %d, with the %s above", covered, plural(problems, "problem"))
}

// checkStream reads back an S3 stream for auditlog stream check and
// auditlog verify --stream.
func checkStream(a *verifyArgs, ec ExportConfig, stream string, stdout io.Writer) error {
	switch {
	case (a.dir == "") == (a.bucket == ""):
		return usageError{errors.New("give --bucket or --dir, one of them")}
	case !audit.ValidUUID(a.tenant) || !audit.ValidUUID(stream):
		return usageError{errors.New("--tenant and --stream must be the ids (UUIDs) of the tenant and its stream")}
	case len(a.keyFiles) == 0 && a.api == "":
		return usageError{errors.New("give the key that signs the manifests: --key <pem> or --api <url>")}
	}
	ctx := context.Background()
	keys, err := a.trustedKeys(ctx, stdout)
	if err != nil {
		return err
	}
	logKeys, err := a.logKeyAlone(ctx, stdout)
	if err != nil {
		return err
	}
	from, err := a.source(ctx, ec)
	if err != nil {
		return err
	}
	rep, err := s3stream.Check(ctx, from, strings.Trim(a.prefix, "/"), audit.NormalizeTenantID(a.tenant), strings.ToLower(stream), keys, logKeys,
		func(line string) { fmt.Fprintln(stdout, line) })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s, %s, %d events: %s; the latest checkpoint holds %d leaves\n",
		plural(rep.Manifests, "manifest"), plural(rep.Objects, "object"), rep.Events, coverage(rep.Covered, rep.Problems), rep.LogSize)
	return a.finishCheck(ctx, logKeys, rep.Problems, rep.Latest, rep.LatestSigned, stdout)
}

// finishCheck checks the latest checkpoint a stream carried against the
// one kept (checkCarried), prints what rolled back, and fails when
// anything did not verify.
func (a *verifyArgs) finishCheck(ctx context.Context, logKeys vlog.Keys, problems int, latest *vlog.Checkpoint, signed []byte, stdout io.Writer) error {
	rolled, err := a.printRolledBack(ctx, logKeys, latest, signed, stdout)
	if err != nil {
		return err
	}
	if problems += rolled; problems > 0 {
		return fmt.Errorf("%w: %s", errCheckFailed, plural(problems, "problem"))
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}

// printRolledBack checks the latest checkpoint carried, if any, against
// the one kept (checkCarried) and prints each finding; it returns how
// many there were.
func (a *verifyArgs) printRolledBack(ctx context.Context, logKeys vlog.Keys, latest *vlog.Checkpoint, signed []byte, stdout io.Writer) (int, error) {
	if latest == nil {
		return 0, nil
	}
	rolled, err := a.checkCarried(ctx, logKeys, carried{cp: *latest, signed: signed})
	if err != nil {
		return 0, err
	}
	for _, p := range rolled {
		fmt.Fprintln(stdout, p)
	}
	return len(rolled), nil
}

// checkCapture checks a webhook capture (webhook.CheckCapture): the log's
// key pinned or the service's; with --api and --token, each event against
// the signed tree's leaves, read from the service's tiles.
func checkCapture(a *verifyArgs, file, stream string, stdout io.Writer) error {
	switch {
	case a.dir != "" || a.bucket != "":
		return usageError{errors.New("--capture reads a file: no --bucket or --dir with it")}
	case !audit.ValidUUID(a.tenant) || !audit.ValidUUID(stream):
		return usageError{errors.New("--tenant and --stream must be the ids (UUIDs) of the tenant and its stream")}
	case a.logKey == "" && a.api == "":
		return usageError{errors.New("give the log's key: --log-key <key> or --api <url>")}
	}
	ctx := context.Background()
	logKeys, err := a.logKeyAlone(ctx, stdout)
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	var signed func(vlog.Checkpoint) tlog.HashReader
	if a.api != "" && a.token != "" {
		src := logapi.Client{Base: a.api, Token: a.token, HTTP: &http.Client{Timeout: time.Minute}}
		signed = func(cp vlog.Checkpoint) tlog.HashReader { return seal.SignedHashes(ctx, src, cp) }
	}
	rep, err := webhook.CheckCapture(f, audit.NormalizeTenantID(a.tenant), strings.ToLower(stream), logKeys, signed,
		func(line string) { fmt.Fprintln(stdout, line) })
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d batches, %d events (%d received again): %s; the latest checkpoint holds %d leaves\n",
		rep.Batches, rep.Events, rep.Repeats, coverage(rep.Covered, rep.Problems), rep.LogSize)
	if signed != nil {
		fmt.Fprintf(stdout, "%d events proved to be the log's leaves; %d not provable (OCSF or masked)\n", rep.Proved, rep.Unprovable)
	}
	return a.finishCheck(ctx, logKeys, rep.Problems, rep.Latest, rep.LatestSigned, stdout)
}
