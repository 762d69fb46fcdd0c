package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/seal"
)

const logUsage = `usage: auditlog log verify --tenant <uuid> --key <verifier key or file>

verify checks a tenant's verifiable log in the configured store (as
auditlog tenant reads it): the latest checkpoint's signature with the
pinned key (GET /api/log-key gives it; keep a copy of your own: a key read
from the store under test proves nothing), the tree rebuilt from the
stored leaves against the checkpoint's root, and every event against its
leaf. It names each altered, missing or unsealed event. Exit 0: intact;
1: something does not verify; 2: usage.
`

// runLog runs `auditlog log verify`.
func runLog(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "verify" {
		if len(args) > 0 && (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
			fmt.Fprint(stdout, logUsage)
			return flag.ErrHelp
		}
		fmt.Fprint(stderr, logUsage)
		return usageError{errors.New("want the subcommand verify")}
	}
	var c Config
	var tenant, key string
	b := newBinder("auditlog log verify", getenv, stderr)
	b.store(&c)
	b.fs.StringVar(&tenant, "tenant", "", "tenant UUID (required)")
	b.fs.StringVar(&key, "key", "", "the checkpoint key, as GET /api/log-key gives it (<name>+<hash>+<key>), or a file holding it (required)")
	if err := b.parse(args[1:]); err != nil {
		return err
	}
	tenant = audit.NormalizeTenantID(tenant)
	if !audit.ValidUUID(tenant) || key == "" {
		return usageError{errors.New("--tenant (a UUID) and --key are required")}
	}
	v, err := verifierKey(key)
	if err != nil {
		return usageError{err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	store, closeStore, err := openTenantDirectory(ctx, c)
	if err != nil {
		return err
	}
	defer closeStore()
	return verifyLog(ctx, store, tenant, v, stdout)
}

// verifierKey reads --key: the key's text, or a file holding it.
func verifierKey(key string) (note.Verifier, error) {
	if b, err := os.ReadFile(key); err == nil {
		key = strings.TrimSpace(string(b))
	}
	v, err := note.NewVerifier(key)
	if err != nil {
		return nil, fmt.Errorf("--key: %v (want <name>+<hash>+<key>, as GET /api/log-key gives it)", err)
	}
	return v, nil
}

// verifyLog prints the verification of the tenant's log; an error when
// anything does not verify.
func verifyLog(ctx context.Context, store any, tenant string, v note.Verifier, stdout io.Writer) error {
	ls, ok1 := store.(audit.LogStore)
	sc, ok2 := store.(audit.EventScanner)
	if !ok1 || !ok2 {
		return errors.New("this store keeps no verifiable log")
	}
	rep, err := seal.Verify(ctx, ls, sc, tenant, v)
	if err != nil {
		return err
	}
	for _, f := range rep.Findings {
		fmt.Fprintln(stdout, f)
	}
	cp := rep.Checkpoint
	if len(rep.Findings) > 0 {
		return fmt.Errorf("the log of %s does not verify: %d findings (checkpoint of %d leaves signed by %s)", tenant, len(rep.Findings), cp.Size, v.Name())
	}
	fmt.Fprintf(stdout, "ok: %d leaves, %d events stored and intact, %d deleted by retention as the log records; the tree matches the checkpoint %s (size %d) signed by %s\n",
		cp.Size, rep.Events, rep.Expired, cp.Origin, cp.Size, v.Name())
	return nil
}
