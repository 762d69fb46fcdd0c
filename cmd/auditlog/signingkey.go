package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/keyfile"
	"github.com/auditlog/auditlog/periodicexport"
)

// The deployment's signing key signs the log's checkpoints and the
// periodic export's digests. It never lives in the store it signs
// (issue 41): whoever can write the database or the cluster could
// otherwise rewrite a history and sign it again. No key is read from the
// store at all (issue 53): the keys published beside it are
// configuration too.
//
//   - AUDITLOG_PERIODIC_SIGNING_KEY names its file (PKCS #8 PEM, mode
//     0600). Elasticsearch deployments must set it: serve and
//     export-periodic refuse to start without it.
//   - The embedded store (SQLite) without it uses <data-dir>/signing-key.pem,
//     generating it on the first start (a file, never a row), and says so.
//   - AUDITLOG_PERIODIC_PUBLIC_KEYS names a directory of the public keys
//     of earlier signing keys (after a rotation), published with the
//     current one. A key row that an earlier version kept in the store
//     (the keys table, the -keys index) is ignored: never used, never
//     published; `auditlog log verify` names it (docs/operations.md says
//     how to carry such a key over).

// SigningKeyFile is the embedded store's signing key, in the data
// directory.
const SigningKeyFile = "signing-key.pem"

// signingKeySet is the key that signs and the public keys to publish (PEM
// by key id, the current one included).
type signingKeySet struct {
	key ed25519.PrivateKey
	pub map[string][]byte
}

// signingKeys loads the signing key once per Main (serve asks for it from
// the sealer and the periodic export).
func (m *Main) signingKeys() (ed25519.PrivateKey, map[string][]byte, error) {
	if m.signing == nil {
		set, err := m.loadSigningKeys()
		if err != nil {
			return nil, nil, err
		}
		m.signing = set
	}
	return m.signing.key, m.signing.pub, nil
}

func (m *Main) loadSigningKeys() (*signingKeySet, error) {
	p := m.Config.Periodic
	file, variable := p.SigningKey, "AUDITLOG_PERIODIC_SIGNING_KEY"
	if file == "" {
		if m.Config.Store != "sqlite" {
			return nil, errors.New("AUDITLOG_PERIODIC_SIGNING_KEY: required with AUDITLOG_STORE=" + m.Config.Store + " (the key must not live in the store it signs)")
		}
		file, variable = filepath.Join(m.Config.DataDir, SigningKeyFile), "AUDITLOG_DATA_DIR"
	}
	key, err := m.keyFromFile(file, variable, p.SigningKey == "")
	if err != nil {
		return nil, err
	}
	set := &signingKeySet{key: key, pub: map[string][]byte{}}
	if err := set.addEarlier(p.PublicKeys); err != nil {
		return nil, err
	}
	return set, nil
}

// keyFromFile reads the key file; with generate (the embedded default)
// it writes a fresh key first when there is none.
func (m *Main) keyFromFile(file, variable string, generate bool) (ed25519.PrivateKey, error) {
	if !generate {
		key, _, err := keyfile.Load(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", variable, err)
		}
		return key, m.Config.looseKey(m.Logger, variable, file)
	}
	_, fresh, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	key, created, _, err := keyfile.LoadOrCreate(file, fresh)
	if err != nil {
		return nil, fmt.Errorf("%s: the signing key %s: %w", variable, file, err)
	}
	if created {
		m.Logger.Warn("wrote the signing key into the data directory (production deployments set AUDITLOG_PERIODIC_SIGNING_KEY, a file kept apart from the store)", "file", file)
	} else {
		m.Logger.Info("signing key", "file", file)
	}
	return key, m.Config.looseKey(m.Logger, variable, file)
}

// addEarlier adds the current key and the earlier public keys of
// AUDITLOG_PERIODIC_PUBLIC_KEYS's files.
func (s *signingKeySet) addEarlier(dir string) error {
	cur := s.key.Public().(ed25519.PublicKey)
	s.pub[signing.KeyID(cur)] = periodicexport.PublicPEM(cur)
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
		s.pub[signing.KeyID(k)] = periodicexport.PublicPEM(k)
	}
	return nil
}
