package main

import (
	"fmt"
	"github.com/auditlog/auditlog/audit/mask"
	"path/filepath"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/keyfile"
)

// check reports the section's problems, each naming its variable.
func (s SensitiveConfig) check() []string {
	if s.Types == "" && s.SecretFields == "" {
		return nil // not bound: the command ingests nothing
	}
	var errs []string
	if s.Types != "-" {
		for _, t := range splitList(s.Types) {
			if !audit.ValidToken(t) {
				errs = append(errs, fmt.Sprintf("AUDITLOG_SENSITIVE_TYPES: %q is not a resource type (lowercase snake_case)", t))
			}
		}
	}
	if len(splitList(s.SecretFields)) == 0 {
		errs = append(errs, "AUDITLOG_SECRET_FIELDS must name at least one field: secrets would be stored in clear")
	}
	if s.MaskKey != "" {
		if err := mask.CheckKey([]byte(s.MaskKey)); err != nil {
			errs = append(errs, "AUDITLOG_MASK_KEY: "+audit.ErrorMessage(err))
		}
	}
	return errs
}

// MaskKeyFile is the embedded store's masking key, in the data directory.
const MaskKeyFile = "mask-key"

// sensitivePolicy builds the policy both entry points apply. Its masking
// key is configuration, never a row of the store (issue 53: whoever could
// read it there could test guesses of a secret against its markers, and
// whoever could write it there could choose it): AUDITLOG_MASK_KEY; else,
// on the embedded store, <data-dir>/mask-key (generated on the first
// start); else, on Elasticsearch, a key derived from the acceptance key,
// which every process that ingests holds (so they mask alike). A key an
// earlier version kept in the store is not read: set AUDITLOG_MASK_KEY to
// it to keep the markers of equal secrets equal across the upgrade
// (docs/event.md, "Sensitive changes").
func (m *Main) sensitivePolicy() (*mask.Policy, error) {
	s := m.Config.Sensitive
	p := &mask.Policy{Types: []string{}, SecretFields: splitList(s.SecretFields), Key: []byte(s.MaskKey)}
	if s.Types != "-" {
		p.Types = splitList(s.Types)
	}
	if len(p.Key) > 0 {
		return p, nil
	}
	if m.Config.Store == "sqlite" {
		file := filepath.Join(m.Config.DataDir, MaskKeyFile)
		key, created, _, err := keyfile.LoadOrCreateSecret(file, mask.NewKey(), mask.MinKey)
		if err != nil {
			return nil, fmt.Errorf("AUDITLOG_DATA_DIR: the masking key %s (or set AUDITLOG_MASK_KEY): %w", file, err)
		}
		if created {
			m.Logger.Info("wrote the masking key into the data directory", "file", file)
		}
		p.Key = key
		return p, m.Config.looseKey(m.Logger, "AUDITLOG_DATA_DIR", file)
	}
	a, err := m.acceptor(true)
	if err != nil {
		return nil, err
	}
	p.Key = a.DeriveKey("auditlog-mask-key-v1")
	return p, nil
}
