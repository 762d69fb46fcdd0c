package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/periodicexport"
	"github.com/auditlog/auditlog/seal"
)

// LogConfig is the verifiable log's section.
type LogConfig struct {
	Seal   bool
	Origin string
	Every  time.Duration
	// Witnesses are the witnesses asked to cosign every checkpoint:
	// "<url> <key>" entries, comma-separated (witnesses.go).
	Witnesses string
	bound     bool // the command takes this section (serve)
	// sealBound: the command takes AUDITLOG_LOG_SEAL (serve, index).
	// Commands that do not still queue what they store for sealing.
	sealBound bool
}

// queue reports whether stores queue stored events for sealing
// (Elasticsearch): unless AUDITLOG_LOG_SEAL=false where it is taken.
func (l LogConfig) queue() bool { return l.Seal || !l.sealBound }

func (b *binder) tlog(c *Config) {
	l := &c.Log
	l.bound = true
	b.logSeal(c, "append every stored event to its tenant's verifiable log and sign checkpoints (with Elasticsearch, the indexer queues its writes for the sealer of serve)")
	b.str(&l.Origin, "log-origin", "AUDITLOG_LOG_ORIGIN", "auditlog.local",
		"the deployment's name in the logs' checkpoints (<origin>/tenants/<tenant>) and the checkpoint key's name")
	b.duration(&l.Every, "log-seal-every", "AUDITLOG_LOG_SEAL_EVERY", time.Second, "how often new events are sealed: rounds go on at once only while full batches of 5,000 are pending")
	b.str(&l.Witnesses, "log-witnesses", "AUDITLOG_LOG_WITNESSES", "",
		"witnesses that cosign every checkpoint (C2SP tlog-witness), comma-separated, each \"<url> <witness key>\" (the key as litewitness prints it)")
}

// logSeal binds AUDITLOG_LOG_SEAL alone (index: it queues what it
// writes for sealing; serve seals).
func (b *binder) logSeal(c *Config, usage string) {
	c.Log.sealBound = true
	b.boolean(&c.Log.Seal, "log-seal", "AUDITLOG_LOG_SEAL", true, usage)
}

// originName is what note accepts as a key name, and a checkpoint as an
// origin: a host-like name, optionally with a path.
var originName = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(/[A-Za-z0-9._-]+)*$`)

func (l LogConfig) check() []string {
	if !l.bound {
		return nil
	}
	if !originName.MatchString(l.Origin) || len(l.Origin) > 200 {
		return []string{fmt.Sprintf("AUDITLOG_LOG_ORIGIN=%q: want a host-like name such as auditlog.example.com (lower-case letters, digits, . and -; an optional /path)", l.Origin)}
	}
	if _, err := parseWitnesses(l.Witnesses); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// startSealer runs the sealer of the store in the background, when the
// store keeps a verifiable log and sealing is on; it returns the log for
// the API (a nil Store: none). The checkpoints are signed with the
// periodic export's current key; its earlier keys (after a rotation) are
// published too, so that a verifier pinning them checks older
// checkpoints, and learns the new key from a service it already trusts.
func (m *Main) startSealer(ctx context.Context, store eventStore) (api.LogDeps, error) {
	cfg := m.Config.Log
	if r, wrapped := store.(retainedStore); wrapped {
		store = r.eventStore // the log is kept below the retention view
	}
	ls, ok := store.(vlog.Store)
	if !ok || !cfg.Seal {
		m.Logger.Info("verifiable log off", "store", m.Config.Store, "seal", cfg.Seal)
		return api.LogDeps{}, nil
	}
	key, pubs, err := m.signingKeys()
	if err != nil {
		return api.LogDeps{}, err
	}
	cur := key.Public().(ed25519.PublicKey)
	deps := api.LogDeps{Store: ls, Origin: cfg.Origin, Key: cur}
	ids := make([]string, 0, len(pubs))
	for id := range pubs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if pub, err := periodicexport.ParsePublicKey(pubs[id]); err == nil && !pub.Equal(cur) {
			deps.Earlier = append(deps.Earlier, pub)
		}
	}
	accept, err := m.acceptor(true)
	if err != nil {
		return api.LogDeps{}, err
	}
	sd := seal.Deps{Store: ls, Key: key, Logger: m.Logger, Registry: m.Registry, Accept: accept}
	if deps.Cosigner, deps.Witnesses, err = m.startCosigner(ctx, store, ls); err != nil {
		return api.LogDeps{}, err
	}
	if deps.Cosigner != nil {
		sd.OnSealed = deps.Cosigner.Sealed
		deps.Cosigned = store.(vlog.CosignStore)
	}
	s := seal.New(seal.Config{Origin: cfg.Origin, Every: cfg.Every}, sd)
	deps.Sealer = s
	m.background(ctx, "sealer", s.Run)
	m.Logger.Info("verifiable log", "origin", cfg.Origin, "verifier_key", vlog.VerifierKey(cfg.Origin, cur), "earlier_keys", len(deps.Earlier))
	return deps, nil
}
