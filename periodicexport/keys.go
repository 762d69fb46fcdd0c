package periodicexport

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/auditlog/auditlog/audit/periodic"
)

// The public keys (PKIX PEM) that verify the periodic export's digests;
// the signing key is read by package keyfile.

// ParsePublicKey reads an Ed25519 public key from PEM (PKIX), as the
// service publishes them.
func ParsePublicKey(raw []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New("not a PEM public key")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	ed, ok := pub.(ed25519.PublicKey)
	if err != nil || !ok {
		return nil, errors.New("not an Ed25519 public key")
	}
	return ed, nil
}

// LoadPublicKey reads the public key of a PEM file; its errors name the
// file.
func LoadPublicKey(file string) (ed25519.PublicKey, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	k, err := ParsePublicKey(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return k, nil
}

// PublicPEM is a public key as the service publishes it (PKIX PEM).
func PublicPEM(k ed25519.PublicKey) []byte {
	der, _ := x509.MarshalPKIXPublicKey(k)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// Destination is where a tenant's export goes: its own bucket and prefix
// when its state names them, else the deployment's (bucket "" for the
// local directory).
func Destination(st *periodic.State, bucket, prefix string) (string, string) {
	if st.Bucket != "" {
		bucket = st.Bucket
	}
	if st.Prefix != "" {
		prefix = st.Prefix
	}
	return bucket, prefix
}
