package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/keyfile"
	"github.com/auditlog/auditlog/periodicexport"
)

// The deployment's signing key signs the log's checkpoints and the
// periodic export's digests. It never lives in the store it signs
// (issue 41): whoever can write the database or the cluster could
// otherwise rewrite a history and sign it again.
//
//   - AUDITLOG_PERIODIC_SIGNING_KEY names its file (PKCS #8 PEM, mode
//     0600). Elasticsearch deployments must set it: serve and
//     export-periodic refuse to start without it.
//   - The embedded store (SQLite) without it uses <data-dir>/signing-key.pem,
//     generating it on the first start (a file, never a row), and says so.
//   - A private key that a version before this one generated into the
//     store (the keys table, or the -keys index) is moved out: into the
//     data directory's file when none is configured, then deleted from
//     the store; when a configured key differs, the old one is retired
//     (deleted, its public key kept in the store and published as an
//     earlier key, so its checkpoints and digests still verify).

// SigningKeyFile is the embedded store's signing key, in the data
// directory.
const SigningKeyFile = "signing-key.pem"

// legacySigningKey is the store key under which earlier versions kept a
// generated signing key (its 32-byte seed); retiredSigningKey keeps the
// public key (PKIX PEM) of one retired in favour of a configured key.
const (
	legacySigningKey  = "periodic-signing-key"
	retiredSigningKey = "retired-signing-public-key"
)

// signingKeySet is the key that signs and the public keys to publish (PEM
// by key id, the current one included).
type signingKeySet struct {
	key ed25519.PrivateKey
	pub map[string][]byte
}

// signingKeys loads the signing key once per Main (serve asks for it from
// the sealer and the periodic export), moving out a key of the store.
func (m *Main) signingKeys(ctx context.Context, keys audit.KeyStore) (ed25519.PrivateKey, map[string][]byte, error) {
	if m.signing == nil {
		set, err := m.loadSigningKeys(ctx, keys)
		if err != nil {
			return nil, nil, err
		}
		m.signing = set
	}
	return m.signing.key, m.signing.pub, nil
}

func (m *Main) loadSigningKeys(ctx context.Context, keys audit.KeyStore) (*signingKeySet, error) {
	p := m.Config.Periodic
	legacy, hasLegacy, err := keys.StoredKey(ctx, legacySigningKey)
	if err != nil {
		return nil, err
	}
	if hasLegacy && len(legacy) != ed25519.SeedSize {
		return nil, fmt.Errorf("the store's %s is not a key (%d bytes): delete it", legacySigningKey, len(legacy))
	}
	file, variable := p.SigningKey, "AUDITLOG_PERIODIC_SIGNING_KEY"
	if file == "" {
		if m.Config.Store != "sqlite" {
			return nil, errors.New("AUDITLOG_PERIODIC_SIGNING_KEY: required with AUDITLOG_STORE=" + m.Config.Store + " (the key must not live in the store it signs)")
		}
		file, variable = filepath.Join(m.Config.DataDir, SigningKeyFile), "AUDITLOG_DATA_DIR"
	}
	key, err := m.keyFromFile(file, variable, p.SigningKey == "", legacy)
	if err != nil {
		return nil, err
	}
	set := &signingKeySet{key: key, pub: map[string][]byte{}}
	if hasLegacy {
		if err := m.moveOutLegacyKey(ctx, keys, key, legacy); err != nil {
			return nil, err
		}
	}
	if err := set.addEarlier(ctx, keys, p.PublicKeys); err != nil {
		return nil, err
	}
	return set, nil
}

// keyFromFile reads the key file; with generate (the embedded default)
// it writes one first when there is none: the store's legacy key when it
// holds one, else a fresh key.
func (m *Main) keyFromFile(file, variable string, generate bool, legacy []byte) (ed25519.PrivateKey, error) {
	if !generate {
		key, loose, err := keyfile.Load(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", variable, err)
		}
		if loose {
			m.Logger.Warn("the signing key file may be read by others than its owner; make it mode 0600", "file", file)
		}
		return key, nil
	}
	fresh, from := ed25519.PrivateKey(nil), "generated"
	if legacy != nil {
		fresh, from = ed25519.NewKeyFromSeed(legacy), "moved out of the store"
	} else if _, k, err := ed25519.GenerateKey(nil); err == nil {
		fresh = k
	}
	key, created, _, err := keyfile.LoadOrCreate(file, fresh)
	if err != nil {
		return nil, fmt.Errorf("%s: the signing key %s: %w", variable, file, err)
	}
	if created {
		m.Logger.Warn("wrote the signing key into the data directory (production deployments set AUDITLOG_PERIODIC_SIGNING_KEY, a file kept apart from the store)", "file", file, "key", from)
	} else {
		m.Logger.Info("signing key", "file", file)
	}
	return key, nil
}

// moveOutLegacyKey deletes the private key an earlier version kept in the
// store, once the key in use is safely on file; a different key is
// retired, its public key kept and published as an earlier key.
func (m *Main) moveOutLegacyKey(ctx context.Context, keys audit.KeyStore, key ed25519.PrivateKey, legacy []byte) error {
	old := ed25519.NewKeyFromSeed(legacy)
	oldPub := old.Public().(ed25519.PublicKey)
	if !old.Equal(key) {
		if _, err := keys.Key(ctx, retiredSigningKey, periodicexport.PublicPEM(oldPub)); err != nil {
			return err
		}
	}
	if err := keys.DeleteKey(ctx, legacySigningKey); err != nil {
		return err
	}
	m.Logger.Warn("deleted the private signing key an earlier version kept in the store", "key_id", audit.KeyID(oldPub),
		"retired", !old.Equal(key))
	return nil
}

// addEarlier adds the current key and the earlier public keys: a key
// retired from the store, and AUDITLOG_PERIODIC_PUBLIC_KEYS's files.
func (s *signingKeySet) addEarlier(ctx context.Context, keys audit.KeyStore, dir string) error {
	cur := s.key.Public().(ed25519.PublicKey)
	s.pub[audit.KeyID(cur)] = periodicexport.PublicPEM(cur)
	if pem, found, err := keys.StoredKey(ctx, retiredSigningKey); err != nil {
		return err
	} else if found {
		if k, err := periodicexport.ParsePublicKey(pem); err == nil {
			s.pub[audit.KeyID(k)] = periodicexport.PublicPEM(k)
		}
	}
	if dir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.pem"))
	if err != nil {
		return fmt.Errorf("AUDITLOG_PERIODIC_PUBLIC_KEYS: %w", err)
	}
	for _, f := range files {
		k, err := periodicexport.LoadPublicKey(f)
		if err != nil {
			return fmt.Errorf("AUDITLOG_PERIODIC_PUBLIC_KEYS: %w", err)
		}
		s.pub[audit.KeyID(k)] = periodicexport.PublicPEM(k)
	}
	return nil
}
