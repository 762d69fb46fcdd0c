package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/logapi"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/tlogwitness"
)

const logUsage = `Usage: auditlog log verify --tenant <uuid> --key <verifier key or file>[,…]
                          [--witness-key <witness key or file>[,…] | --witness "<url> <witness key>"[,…]] [--witness-quorum k]
                          [--api <url> --token <jwt> [--save <dir>] | --dir <dir> | --repair] [--grace 30s] [--state <dir>|none]

Checks a tenant's verifiable log against keys you pinned (GET /api/log-key
gives them; a key read from the source under test proves nothing): the
latest checkpoint's signature (and, with --witness-key, its witnesses'
cosignatures), the tree rebuilt from the leaves, every event against its
leaf. It names each altered, missing, repeated or unsealed event. It keeps
the largest checkpoint it verified (--state) and refuses a smaller tree or
one that does not extend it (rollback); with --witness, it asks each
witness what it cosigned last and refuses a log behind it.

It reads the configured store (default), a running service (--api and
--token; --save keeps what it read) or such a saved directory (--dir).
--repair rewrites the index data of events named misindexed from their
proven bodies. Exit 0: intact; 1: something does not verify; 2: usage.
docs/verifiable-log.md says more.
`

// logArgs are auditlog log verify's arguments.
type logArgs struct {
	tenant, key, api, token, dir, save string
	witnessKeys, witnesses, state      string
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
	b.fs.StringVar(&a.witnesses, "witness", "", "witnesses as \"<url> <witness key>\", comma-separated (AUDITLOG_LOG_WITNESSES's form): as --witness-key, and each is asked what it cosigned last, so that a log behind it is refused (rollback) with no state of this verifier's own")
	b.fs.IntVar(&a.quorum, "witness-quorum", 0, "how many of the --witness-key witnesses must have cosigned (default: all)")
	b.str(&a.state, "state", "AUDITLOG_VERIFY_STATE", defaultState(getenv), "directory where the largest checkpoint verified of each log is kept, to refuse a rollback (default <user cache>/auditlog/verified); none keeps nothing")
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
	mem := a.memory()
	origin := vlog.Origin(keys.Name(), a.tenant)
	kept, ok, err := mem.Kept(origin, keys)
	if err != nil {
		return fmt.Errorf("--state: %w", err)
	}
	var keptp *vlog.Checkpoint
	if ok {
		keptp = &kept
	}
	rep, err := seal.CheckKept(ctx, src, a.tenant, keys, a.grace, keptp)
	if err = errors.Join(err, done()); err != nil {
		return err
	}
	if a.repair {
		if rep, err = a.repairThenCheck(ctx, c, keys, rep, stdout); err != nil {
			return err
		}
	}
	ws, _ := parseWitnessFlag(a.witnesses) // checked by check
	rep.Findings = append(rep.Findings, witnessesAhead(ctx, ws, rep)...)
	if len(rep.Findings) == 0 {
		if err := mem.Keep(rep.Checkpoint, rep.Signed, keys); err != nil {
			return fmt.Errorf("--state: keeping the checkpoint verified: %w", err)
		}
	}
	return printLogReport(stdout, a.tenant, keys, rep)
}

// defaultState is the verifiers' state directory under the user's cache
// directory (XDG_CACHE_HOME, else ~/.cache): os.UserCacheDir's rule on
// Linux, read through getenv; "" (keep nothing) when neither is set.
func defaultState(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "auditlog", "verified")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "auditlog", "verified")
	}
	return ""
}

// memory is where this verification keeps what it verified (--state).
func (a logArgs) memory() seal.Memory {
	if a.state == "none" || a.state == "" {
		return seal.Memory{}
	}
	return seal.Memory{Dir: a.state}
}

// witnessesAhead asks each witness what it cosigned last of the log
// (tlogwitness.Witness.Latest) and names a rollback where a witness
// cosigned a larger tree than the log shows, or another tree of its size.
// A witness that cannot be asked is named too: the check was not made.
func witnessesAhead(ctx context.Context, ws []tlogwitness.Witness, rep seal.Report) []seal.Finding {
	var out []seal.Finding
	cp := rep.Checkpoint
	for _, w := range ws {
		latest, fork, err := w.Latest(ctx, rep.Signed, cp.Size)
		switch {
		case err != nil:
			out = append(out, seal.Finding{Kind: "witness", Index: -1, EventID: w.Key.Name(), Detail: "could not be asked what it cosigned last: " + err.Error()})
		case fork:
			out = append(out, seal.Finding{Kind: "rollback", Index: -1, EventID: w.Key.Name(),
				Detail: fmt.Sprintf("the witness cosigned another tree of the %d leaves the log shows (a fork)", cp.Size)})
		case latest > cp.Size:
			out = append(out, seal.Finding{Kind: "rollback", Index: -1, EventID: w.Key.Name(),
				Detail: fmt.Sprintf("the witness cosigned a tree of %d leaves; the log shows %d (a rollback: an older copy of the store)", latest, cp.Size)})
		}
	}
	return out
}

// parseWitnessFlag reads --witness: "<url> <key>" entries, comma-separated.
func parseWitnessFlag(text string) ([]tlogwitness.Witness, error) {
	ws, err := parseWitnesses(text)
	if err != nil {
		return nil, errors.New(strings.Replace(err.Error(), "AUDITLOG_LOG_WITNESSES", "--witness", 1))
	}
	return ws, nil
}

// check checks the arguments and reads the keys.
func (a logArgs) check() (vlog.Keys, error) {
	switch {
	case !audit.ValidUUID(a.tenant) || a.key == "":
		return vlog.Keys{}, errors.New("--tenant (a UUID) and --key are required")
	case a.api != "" && a.dir != "":
		return vlog.Keys{}, errors.New("--api or --dir, not both")
	case (a.api == "") != (a.token == ""):
		return vlog.Keys{}, errors.New("--api and --token go together")
	case a.save != "" && a.api == "":
		return vlog.Keys{}, errors.New("--save goes with --api")
	case a.repair && (a.api != "" || a.dir != ""):
		return vlog.Keys{}, errors.New("--repair repairs the configured store: not with --api or --dir")
	case a.grace < 0 || a.grace > 10*time.Minute:
		return vlog.Keys{}, fmt.Errorf("--grace=%s: want from 0 to 10m", a.grace)
	}
	keys, err := logKeys("--key", a.key)
	if err != nil {
		return keys, err
	}
	ws, err := parseWitnessFlag(a.witnesses)
	if err != nil {
		return keys, err
	}
	wkeys := a.witnessKeys
	for _, w := range ws {
		wkeys = strings.Trim(wkeys+","+fmt.Sprint(w.Key), ",")
	}
	return witnessPolicy(keys, wkeys, a.quorum)
}

// witnessPolicy adds the witnesses of a --witness-key flag (keys or files
// holding them, comma-separated) to keys, quorum of them required (0:
// all).
func witnessPolicy(keys vlog.Keys, arg string, quorum int) (vlog.Keys, error) {
	if arg == "" {
		if quorum != 0 {
			return keys, errors.New("--witness-quorum goes with --witness-key")
		}
		return keys, nil
	}
	ws, err := vlog.ParseWitnessKeys(keysOrFiles(arg))
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
	ls, ok1 := store.(vlog.Store)
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
func logKeys(name, arg string) (vlog.Keys, error) {
	keys, err := vlog.ParseKeys(keysOrFiles(arg))
	if err != nil {
		return vlog.Keys{}, fmt.Errorf("%s: %v", name, err)
	}
	return keys, nil
}

// printLogReport prints the verification; an error when anything does
// not verify.
func printLogReport(stdout io.Writer, tenant string, keys vlog.Keys, rep seal.Report) error {
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
