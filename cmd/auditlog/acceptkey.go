package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/keyfile"
)

// The acceptance key (issue 53) tags every event the service accepts,
// before the store sees it (vlog.Acceptor); the sealer seals nothing
// else. It is a file, never a row of the store: whoever can write the
// database or the cluster cannot tag a row of their own.
//
//   - AUDITLOG_ACCEPT_KEY names its file: base64 of at least 32 random
//     bytes (`openssl rand -base64 32`). Elasticsearch deployments must
//     set it, the same file for serve, index and the tenant command:
//     what index tags, serve's sealer checks.
//   - The embedded store without it uses <data-dir>/accept-key,
//     generated on the first start.
//   - AUDITLOG_ACCEPT_EARLIER_KEYS names the files of keys used before a
//     rotation: rows they tagged that wait to be sealed are still sealed.

// AcceptKeyFile is the embedded store's acceptance key, in the data
// directory.
const AcceptKeyFile = "accept-key"

// KeysConfig is the keys section: the acceptance key, and the mode that
// decides whether a key file others may read is refused.
type KeysConfig struct {
	AcceptKey     string
	AcceptEarlier string
	// Mode is production, development or auto (production with
	// Elasticsearch, development with the embedded store).
	Mode string
}

func (b *binder) keys(c *Config) {
	k := &c.Keys
	b.str(&k.AcceptKey, "accept-key", "AUDITLOG_ACCEPT_KEY", "",
		"file of the acceptance key (base64 of at least 32 random bytes: openssl rand -base64 32) that tags every event the service accepts; the sealer seals nothing else. Required with Elasticsearch, one file for serve, index, tenant and stream (the embedded store generates <data-dir>/accept-key)")
	b.str(&k.AcceptEarlier, "accept-earlier-keys", "AUDITLOG_ACCEPT_EARLIER_KEYS", "",
		"files of the acceptance keys used before a rotation, comma-separated: the rows they tagged are still sealed")
	b.mode(c)
}

// mode binds AUDITLOG_MODE: how a key file others may read is taken.
func (b *binder) mode(c *Config) {
	b.str(&c.Keys.Mode, "mode", "AUDITLOG_MODE", "auto",
		"production (a key file any user may read is refused) or development (it is warned about); auto: production with Elasticsearch, development with the embedded store")
}

// check reports the section's problems, each naming its variable.
func (k KeysConfig) check(c *Config, writes bool) []string {
	var errs []string
	switch k.Mode {
	case "", "auto", "production", "development": // "": a command that binds no keys
	default:
		errs = append(errs, fmt.Sprintf("AUDITLOG_MODE=%q: want production, development or auto", k.Mode))
	}
	if writes && c.Store == "elasticsearch" && k.AcceptKey == "" && c.Log.queue() {
		errs = append(errs, "AUDITLOG_ACCEPT_KEY must be set when AUDITLOG_STORE=elasticsearch: every process that writes events (serve, index, tenant, stream) tags them with this key, kept apart from the store, and the sealer seals nothing else (openssl rand -base64 32 > accept-key)")
	}
	return errs
}

// production reports whether key files readable by others are refused.
func (c Config) production() bool {
	return c.Keys.Mode == "production" || (c.Keys.Mode != "development" && c.Store == "elasticsearch")
}

// looseKey refuses, in production, a key file any user may read (world
// bits), and warns of one in development, and of one its group may read
// (0440 with the service's group is how a container platform mounts a
// key for a service's user). variable names the setting.
func (c Config) looseKey(logger *slog.Logger, variable, file string) error {
	if !keyfile.Loose(file) {
		return nil
	}
	if keyfile.WorldReadable(file) && c.production() {
		return fmt.Errorf("%s: %s may be read by any user: make it mode 0600 (or 0440 with the service's group; AUDITLOG_MODE=development only warns)", variable, file)
	}
	logger.Warn("a key file may be read by others than its owner; make it mode 0600 (one any user may read is refused with AUDITLOG_MODE=production)", "variable", variable, "file", file)
	return nil
}

// acceptor loads the acceptance keys once per Main. Without
// AUDITLOG_ACCEPT_KEY, the embedded store's file in the data directory is
// read, and written first when generate is set and there is none (the
// commands that write events); a command that only reads (log verify)
// gets nil then, and checks no tag.
func (m *Main) acceptor(generate bool) (*vlog.Acceptor, error) {
	if m.accept != nil {
		return m.accept, nil
	}
	k := m.Config.Keys
	file, variable := k.AcceptKey, "AUDITLOG_ACCEPT_KEY"
	if file == "" {
		if m.Config.Store != "sqlite" {
			if generate && m.Config.Log.queue() {
				return nil, errors.New("AUDITLOG_ACCEPT_KEY must be set when AUDITLOG_STORE=elasticsearch: this command writes events, and tags them with the acceptance key that serve, index, tenant and stream share")
			}
			return nil, nil
		}
		file, variable = filepath.Join(m.Config.DataDir, AcceptKeyFile), "AUDITLOG_DATA_DIR"
	}
	var key []byte
	var err error
	switch {
	case k.AcceptKey == "" && generate:
		fresh := make([]byte, vlog.AcceptKeySize)
		_, _ = rand.Read(fresh)
		var created bool
		key, created, _, err = keyfile.LoadOrCreateSecret(file, fresh, vlog.AcceptKeySize)
		if created {
			m.Logger.Warn("wrote the acceptance key into the data directory (production deployments set AUDITLOG_ACCEPT_KEY, a file kept apart from the store)", "file", file)
		}
	default:
		key, _, err = keyfile.LoadSecret(file, vlog.AcceptKeySize)
		if errors.Is(err, fs.ErrNotExist) && k.AcceptKey == "" {
			return nil, nil // a reader of a store no serve has started with this version
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the acceptance key %s: %w", variable, file, err)
	}
	if err := m.Config.looseKey(m.Logger, variable, file); err != nil {
		return nil, err
	}
	var earlier [][]byte
	for _, f := range splitList(k.AcceptEarlier) {
		e, _, err := keyfile.LoadSecret(f, vlog.AcceptKeySize)
		if err != nil {
			return nil, fmt.Errorf("AUDITLOG_ACCEPT_EARLIER_KEYS: %w", err)
		}
		if err := m.Config.looseKey(m.Logger, "AUDITLOG_ACCEPT_EARLIER_KEYS", f); err != nil {
			return nil, err
		}
		earlier = append(earlier, e)
	}
	a, err := vlog.NewAcceptor(key, earlier...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", variable, err)
	}
	m.Logger.Info("acceptance key", "file", file, "key_id", a.KeyID(), "earlier_keys", len(earlier))
	m.accept = a
	return a, nil
}
