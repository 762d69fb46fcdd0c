package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/logapi"
	"github.com/auditlog/auditlog/seal"
)

const logUsage = `Usage: auditlog log verify --tenant <uuid> --key <verifier key or file>[,…]
                          [--witness-key <witness key or file>[,…] [--witness-quorum k]]
                          [--api <url> --token <jwt> [--save <dir>] | --dir <dir> | --repair] [--grace 30s]

Checks a tenant's verifiable log against keys you pinned (GET /api/log-key
gives them; a key read from the source under test proves nothing): the
latest checkpoint's signature (and, with --witness-key, its witnesses'
cosignatures), the tree rebuilt from the leaves, every event against its
leaf. It names each altered, missing, repeated or unsealed event.

It reads the configured store (default), a running service (--api and
--token; --save keeps what it read) or such a saved directory (--dir).
--repair rewrites the index data of events named misindexed from their
proven bodies. Exit 0: intact; 1: something does not verify; 2: usage.
docs/verifiable-log.md says more.
`

// logArgs are auditlog log verify's arguments.
type logArgs struct {
	tenant, key, api, token, dir, save string
	witnessKeys                        string
	quorum                             int
	repair                             bool
	grace                              time.Duration
}

// runLog runs `auditlog log verify`.
func runLog(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "verify" {
		if len(args) == 0 || !wantsHelp(args[:1]) {
			fmt.Fprint(stderr, logUsage)
			return usageError{errors.New("want the subcommand verify")}
		}
		args = append([]string{"verify"}, args...) // auditlog log --help: verify's page
	}
	var c Config
	var a logArgs
	b := newBinder("auditlog log verify", getenv, stderr)
	b.describe(stdout, logUsage, "Store")
	b.store(&c)
	b.fs.StringVar(&a.tenant, "tenant", "", "tenant UUID (required)")
	b.fs.StringVar(&a.key, "key", "", "the checkpoint keys, as GET /api/log-key gives them, or files holding them, comma-separated (required)")
	b.fs.StringVar(&a.witnessKeys, "witness-key", "", "witnesses' keys (cosignature/v1, as litewitness prints them), or files holding them, comma-separated: the checkpoint must carry their cosignatures")
	b.fs.IntVar(&a.quorum, "witness-quorum", 0, "how many of the --witness-key witnesses must have cosigned (default: all)")
	b.fs.StringVar(&a.api, "api", "", "verify through the service at this URL (with --token) instead of the store")
	b.fs.StringVar(&a.token, "token", "", "a token of the tenant, with --api")
	b.fs.StringVar(&a.save, "save", "", "with --api: write what was read into this directory, to verify offline later with --dir")
	b.fs.StringVar(&a.dir, "dir", "", "verify a directory written by --save, offline")
	b.fs.BoolVar(&a.repair, "repair", false, "rewrite the index data of each event named misindexed from its intact body, then verify again (the store only)")
	b.fs.DurationVar(&a.grace, "grace", 30*time.Second, "how long to wait for later checkpoints before naming a stored event unsealed (0 to 10m)")
	if err := b.parse(args[1:]); err != nil {
		return err
	}
	a.tenant = audit.NormalizeTenantID(a.tenant)
	if a.dir != "" {
		a.grace = 0 // a saved copy's checkpoint never moves on
	}
	keys, err := a.check()
	if err != nil {
		return usageError{err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c.SQLiteCacheMiB = 8 // it reads each page once: a cache would only hold memory
	if getenv("GOGC") == "" {
		// What stays live is the leaf table (about 60 bytes a leaf, no
		// pointers: cheap to collect often); the rest is each row's
		// garbage. Collecting at 25% growth keeps the peak near the
		// table (BENCHMARKS.md, log verify) for no measurable time.
		debug.SetGCPercent(25)
	}
	src, done, err := a.source(ctx, c)
	if err != nil {
		return err
	}
	rep, err := seal.Check(ctx, src, a.tenant, keys, a.grace)
	if err = errors.Join(err, done()); err != nil {
		return err
	}
	if a.repair {
		if rep, err = a.repairThenCheck(ctx, c, keys, rep, stdout); err != nil {
			return err
		}
	}
	return printLogReport(stdout, a.tenant, keys, rep)
}

// check checks the arguments and reads the keys.
func (a logArgs) check() (audit.LogKeys, error) {
	switch {
	case !audit.ValidUUID(a.tenant) || a.key == "":
		return audit.LogKeys{}, errors.New("--tenant (a UUID) and --key are required")
	case a.api != "" && a.dir != "":
		return audit.LogKeys{}, errors.New("--api or --dir, not both")
	case (a.api == "") != (a.token == ""):
		return audit.LogKeys{}, errors.New("--api and --token go together")
	case a.save != "" && a.api == "":
		return audit.LogKeys{}, errors.New("--save goes with --api")
	case a.repair && (a.api != "" || a.dir != ""):
		return audit.LogKeys{}, errors.New("--repair repairs the configured store: not with --api or --dir")
	case a.grace < 0 || a.grace > 10*time.Minute:
		return audit.LogKeys{}, fmt.Errorf("--grace=%s: want from 0 to 10m", a.grace)
	}
	keys, err := logKeys("--key", a.key)
	if err != nil {
		return keys, err
	}
	return witnessPolicy(keys, a.witnessKeys, a.quorum)
}

// witnessPolicy adds the witnesses of a --witness-key flag (keys or files
// holding them, comma-separated) to keys, quorum of them required (0:
// all).
func witnessPolicy(keys audit.LogKeys, arg string, quorum int) (audit.LogKeys, error) {
	if arg == "" {
		if quorum != 0 {
			return keys, errors.New("--witness-quorum goes with --witness-key")
		}
		return keys, nil
	}
	ws, err := audit.ParseWitnessKeys(keysOrFiles(arg))
	if err != nil {
		return keys, fmt.Errorf("--witness-key: %v", err)
	}
	if quorum == 0 {
		quorum = len(ws)
	}
	keys, err = keys.WithWitnesses(ws, quorum)
	if err != nil {
		return keys, fmt.Errorf("--witness-quorum: %v", err)
	}
	return keys, nil
}

// source opens what the log is read from, and what closes it.
func (a logArgs) source(ctx context.Context, c Config) (seal.Source, func() error, error) {
	switch {
	case a.dir != "":
		d := &logapi.Dir{Path: a.dir}
		return d, d.Close, nil
	case a.api != "":
		var src seal.Source = logapi.Client{Base: a.api, Token: a.token, HTTP: &http.Client{Timeout: time.Minute}}
		if a.save == "" {
			return src, func() error { return nil }, nil
		}
		r := &logapi.Recorder{Src: src, Dir: a.save}
		return r, r.Finish, nil
	}
	store, closeStore, err := openTenantDirectory(ctx, "log", c)
	if err != nil {
		return nil, nil, err
	}
	ls, ok1 := store.(audit.LogStore)
	sc, ok2 := store.(audit.EventScanner)
	if !ok1 || !ok2 {
		closeStore()
		return nil, nil, errors.New("this store keeps no verifiable log")
	}
	return seal.StoreSource(ls, sc, a.tenant), func() error { closeStore(); return nil }, nil
}

// logKeys reads a key flag: keys in note's verifier form
// (<name>+<hash>+<key>, as GET /api/log-key gives them), or files holding
// them, separated by commas; several keys pin a deployment across a
// rotation.
func logKeys(name, arg string) (audit.LogKeys, error) {
	keys, err := audit.ParseLogKeys(keysOrFiles(arg))
	if err != nil {
		return audit.LogKeys{}, fmt.Errorf("%s: %v", name, err)
	}
	return keys, nil
}

// printLogReport prints the verification; an error when anything does
// not verify.
func printLogReport(stdout io.Writer, tenant string, keys audit.LogKeys, rep seal.Report) error {
	for _, f := range rep.Findings {
		fmt.Fprintln(stdout, f)
	}
	cp := rep.Checkpoint
	if len(rep.Findings) > 0 {
		return fmt.Errorf("the log of %s does not verify: %d findings (checkpoint of %d leaves signed by %s)", tenant, len(rep.Findings), cp.Size, keys.Name())
	}
	fmt.Fprintf(stdout, "ok: %d leaves, %d events stored and intact, %d deleted by retention as the log records; the tree matches the checkpoint %s (size %d) signed by %s\n",
		cp.Size, rep.Events, rep.Expired, cp.Origin, cp.Size, keys.Name())
	return nil
}

// keysOrFiles reads a key flag's comma-separated items, each a key or a
// file holding keys, into one text of keys, a line each.
func keysOrFiles(arg string) string {
	var text []string
	for _, item := range strings.Split(arg, ",") {
		item = strings.TrimSpace(item)
		if b, err := os.ReadFile(item); err == nil {
			item = string(b)
		}
		text = append(text, item)
	}
	return strings.Join(text, "\n")
}
