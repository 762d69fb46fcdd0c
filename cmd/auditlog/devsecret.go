package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// DevSecretFile is the development JWT secret of the embedded default,
// in the data directory. `serve` on the embedded store writes it on first
// start when no secret or public key is configured, and `auditlog token`
// reads it when no secret is configured, so a newcomer's tokens work in
// any shell with no hidden value. Elasticsearch deployments (production)
// must configure AUDITLOG_JWT_SECRET or AUDITLOG_JWT_PUBLIC_KEY.
const DevSecretFile = "dev-jwt-secret"

// devSecret returns the development secret of dataDir and its path,
// creating it (32 random bytes, hex, mode 0600) when create is set and it
// does not exist yet.
func devSecret(dataDir string, create bool) (string, string, error) {
	path := filepath.Join(dataDir, DevSecretFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if s := strings.TrimSpace(string(b)); len(s) >= 32 {
			return s, path, nil
		}
		return "", path, fmt.Errorf("%s is too short to be a secret: delete it and start auditlog serve again", path)
	case !errors.Is(err, fs.ErrNotExist):
		return "", path, fmt.Errorf("reading %s: %w", path, err)
	case !create:
		return "", path, fmt.Errorf("no JWT secret: set AUDITLOG_JWT_SECRET (the server's), or start `auditlog serve` on the embedded store once with the same data directory (it writes a development secret to %s)", path)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", path, err
	}
	s := hex.EncodeToString(raw)
	if err := os.MkdirAll(dataDir, 0o700); err != nil { // the data directory: its owner's alone
		return "", path, fmt.Errorf("AUDITLOG_DATA_DIR: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another process wrote it first: use theirs
		return devSecret(dataDir, false)
	}
	if err != nil {
		return "", path, fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return "", path, fmt.Errorf("writing %s: %w", path, err)
	}
	return s, path, f.Close()
}

// devUserNamespace is the UUID namespace of the user ids that `auditlog
// token` derives from e-mail addresses.
var devUserNamespace = uuid.MustParse("3f0c8e2a-5b7d-4e19-9a6c-2d4b8f1e7a53")

// devUserID derives a stable user id from an e-mail address (a UUIDv5 of
// its lower-case form), so that tokens minted for the same e-mail act as
// the same user: an export made with one is visible with the next.
func devUserID(email string) string {
	return uuid.NewSHA1(devUserNamespace, []byte(strings.ToLower(strings.TrimSpace(email)))).String()
}
