// Package keyfile keeps the deployment's keys in files, mode 0600, never
// in the store whose contents they vouch for (issue 53: no key is read
// from the store): the signing key (the Ed25519 key that signs the log's
// checkpoints and the periodic export's digests, PKCS #8 PEM), so that
// whoever can write the database or the cluster cannot sign a rewritten
// history; and the symmetric keys (secret.go) that tag accepted events
// and mask secrets. Any crypto.Signer with an Ed25519 public key
// does instead (an HSM, a KMS or Vault transit adapter, an ssh-agent):
// the sealer and the periodic export take a crypto.Signer, never the
// key's bytes.
package keyfile

import (
	"crypto"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Parse reads an Ed25519 private key from PEM (PKCS #8).
func Parse(raw []byte) (ed25519.PrivateKey, error) {
	b, _ := pem.Decode(raw)
	if b == nil {
		return nil, errors.New("not a PEM file")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, errors.New("not an Ed25519 key")
	}
	return ek, nil
}

// Encode is key as PKCS #8 PEM, as Load reads it (and as `openssl
// genpkey -algorithm ed25519` writes one).
func Encode(key ed25519.PrivateKey) []byte {
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// Load reads the key of file. loose reports a file that others than its
// owner may read (group or world bits), which the caller logs: a key in
// a container's bind mount may need them, so it is no error. Errors name
// the file.
func Load(file string) (key ed25519.PrivateKey, loose bool, err error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	k, err := Parse(raw)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	st, err := os.Stat(file)
	return k, err == nil && st.Mode().Perm()&0o077 != 0, nil
}

// Create writes key to file, mode 0600, unless the file exists
// (fs.ErrExist: another process wrote one first, so read that one). The
// key is written to a temporary file and linked into place, so no reader
// ever sees a half-written key.
func Create(file string, key ed25519.PrivateKey) error { return writeOnce(file, Encode(key)) }

// writeOnce writes content to file, mode 0600 (its directory 0700 when
// it creates it), unless the file exists (fs.ErrExist).
func writeOnce(file string, content []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".key-*") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(f.Name(), file)
}

// LoadOrCreate reads file, or when it does not exist writes fresh to it
// first (0600) and reports created. Two processes starting at once agree
// on one key: the second reads what the first wrote.
func LoadOrCreate(file string, fresh ed25519.PrivateKey) (key ed25519.PrivateKey, created, loose bool, err error) {
	key, loose, err = Load(file)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, loose, err
	}
	switch err := Create(file, fresh); {
	case errors.Is(err, fs.ErrExist):
		key, loose, err = Load(file)
		return key, false, loose, err
	case err != nil:
		return nil, false, false, err
	}
	return fresh, true, false, nil
}

// Public is the Ed25519 public key of a signer. Errors: a signer whose
// key is not Ed25519.
func Public(s crypto.Signer) (ed25519.PublicKey, error) {
	pub, ok := s.Public().(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the signing key is %T, want an Ed25519 key", s.Public())
	}
	return pub, nil
}
