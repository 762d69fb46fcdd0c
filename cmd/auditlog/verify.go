package main

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/periodic"
)

// runVerify checks a tenant's periodic export offline, from a directory
// (a copy downloaded from the bucket), with nothing but the public keys.
// It prints one line per valid digest and per problem, then a summary,
// and fails (exit 1) on any problem.
func runVerify(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var dir, tenant, prefix, keyDir string
	var keyFiles multiFlag
	b := newBinder("auditlog verify", getenv, stderr)
	b.fs.StringVar(&dir, "dir", "", "directory holding the export (the bucket's objects under their keys)")
	b.fs.StringVar(&tenant, "tenant", "", "the tenant's id")
	b.fs.StringVar(&prefix, "prefix", "exports", "the key prefix the export was written under")
	b.fs.Var(&keyFiles, "key", "PEM file of an Ed25519 public key (repeatable: one per key id of the chain)")
	b.fs.StringVar(&keyDir, "keys", "", "directory of PEM public keys (every *.pem in it)")
	if wantsHelp(args) {
		b.fs.SetOutput(stdout)
	}
	if err := b.parse(args); err != nil {
		return err
	}
	if dir == "" || !audit.ValidUUID(tenant) {
		return fmt.Errorf("--dir and --tenant (a UUID) are required")
	}
	if keyDir != "" {
		found, _ := filepath.Glob(filepath.Join(keyDir, "*.pem"))
		keyFiles = append(keyFiles, found...)
	}
	keys, err := publicKeys(keyFiles)
	if err != nil {
		return err
	}
	rep, err := periodic.Verify(context.Background(), periodic.Dir{Root: dir}, strings.Trim(prefix, "/"), strings.ToLower(tenant), keys,
		func(line string) { fmt.Fprintln(stdout, line) })
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("verification failed: %d problems", rep.Problems)
	}
	return nil
}

// publicKeys reads Ed25519 public keys (PEM, PKIX) by key id.
func publicKeys(files []string) (map[string]ed25519.PublicKey, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no public key: give --key or --keys")
	}
	keys := map[string]ed25519.PublicKey{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		block, _ := pem.Decode(raw)
		if block == nil || block.Type != "PUBLIC KEY" {
			return nil, fmt.Errorf("%s: not a PEM public key", f)
		}
		pub, err := x509.ParsePKIXPublicKey(block.Bytes)
		ed, ok := pub.(ed25519.PublicKey)
		if err != nil || !ok {
			return nil, fmt.Errorf("%s: not an Ed25519 public key", f)
		}
		keys[audit.KeyID(ed)] = ed
	}
	return keys, nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
