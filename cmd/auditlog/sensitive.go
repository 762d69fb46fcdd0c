package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/backoff"
)

// maskKeyName names the generated masking key in the store.
const maskKeyName = "secret-mask-v1"

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
		if err := audit.CheckMaskKey([]byte(s.MaskKey)); err != nil {
			errs = append(errs, "AUDITLOG_MASK_KEY: "+audit.ErrorMessage(err))
		}
	}
	return errs
}

// sensitivePolicy builds the policy both entry points apply. Without
// AUDITLOG_MASK_KEY the key is generated once and kept in the store, so
// every serve and index process on that store masks alike (a configured
// key, kept outside the store, is the stronger choice: docs/event.md, "Sensitive
// changes").
func (m *Main) sensitivePolicy(ctx context.Context, keys audit.KeyStore) (*audit.SensitivePolicy, error) {
	s := m.Config.Sensitive
	p := &audit.SensitivePolicy{Types: []string{}, SecretFields: splitList(s.SecretFields), Key: []byte(s.MaskKey)}
	if s.Types != "-" {
		p.Types = splitList(s.Types)
	}
	if len(p.Key) > 0 {
		return p, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	key, err := keys.Key(ctx, maskKeyName, fresh)
	if err != nil {
		return nil, fmt.Errorf("reading the generated masking key from the store (or set AUDITLOG_MASK_KEY): %w", err)
	}
	p.Key = key
	return p, nil
}

// indexPolicy is sensitivePolicy for index, which starts before its
// cluster is up: it retries until ctx ends.
func (m *Main) indexPolicy(ctx context.Context, keys audit.KeyStore) (*audit.SensitivePolicy, error) {
	var p *audit.SensitivePolicy
	bo := backoff.New(200*time.Millisecond, 15*time.Second)
	err := backoff.Retry(ctx, bo, func(err error) { m.Logger.Warn("reading the masking key failed; retrying", "err", err) },
		func() (err error) { p, err = m.sensitivePolicy(ctx, keys); return err })
	return p, err
}
