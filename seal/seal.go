// Package seal appends every stored event to its tenant's verifiable log
// (audit/tlog.go): rounds that read the events stored since the last
// round in the store's sealing order, add each as the next leaf of its
// tenant's Merkle tree (golang.org/x/mod/sumdb/tlog), and commit the
// leaves, the tree hashes, a signed checkpoint per tenant and the new
// position in one step (vlog.Store.CommitSeal). A round that loses to
// another sealer (ECONFLICT) changes nothing and the next one starts from
// what won, so any number of processes may run it; a crash before the
// commit leaves nothing half done.
package seal

import (
	"context"
	"crypto"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// Config is the sealing section of the configuration.
type Config struct {
	// Origin is the deployment's name in the checkpoints' origin lines
	// (vlog.Origin), which name the signing key too.
	Origin string
	// Every is the pause between rounds when nothing is pending.
	Every time.Duration
	// Linger is the pause after a round that sealed less than a full
	// batch (default: Every), so that events coming steadily are sealed
	// in a few larger rounds rather than one round per ingest commit. Each
	// round commits every tenant's state, signed checkpoint and tail of
	// its tree it touched, on the connection ingest writes with:
	// back-to-back rounds cost SQLite's HTTP ingest 21% of its rate in a
	// side by side run, rounds a second apart 11%, and lingers of a
	// quarter and of half a second measured no better (BENCHMARKS.md,
	// "SQLite HTTP ingest, sealing on vs off"); on Elasticsearch the
	// indexer with sealing went from 69% to 85% of its rate without. The
	// default keeps light ingest at one round a second, as an idle sealer
	// has it: a shorter linger would seal sooner but write each busy
	// tenant's state (and on Elasticsearch its superseded documents) that
	// much more often. A full batch goes on at once: a backlog is sealed
	// back to back.
	Linger time.Duration
	// Batch bounds the events of one round.
	Batch int
}

// Deps are what the sealer needs.
type Deps struct {
	Store vlog.Store
	// Key signs each tenant's checkpoints, under the name of the
	// tenant's origin (NewSigner): an Ed25519 key, from a file or behind
	// any crypto.Signer, never one kept in the store.
	Key      crypto.Signer
	Logger   *slog.Logger
	Registry prometheus.Registerer // nil: metrics not registered
	Now      func() time.Time
	// OnSealed, when set, is told the tenants whose logs a round grew
	// (the cosigner's cue).
	OnSealed func(tenants []string)
	// Accept checks each stored row's acceptance tag (vlog.Acceptor):
	// only a row whose tag verifies is sealed. Nil seals nothing: every
	// row is unaccepted.
	Accept *vlog.Acceptor
}

// Sealer runs sealing rounds.
type Sealer struct {
	cfg        Config
	deps       Deps
	sealed     prometheus.Counter
	rounds     *prometheus.CounterVec
	unaccepted *unacceptedLog
}

// New returns a sealer.
func New(cfg Config, deps Deps) *Sealer {
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 5000
	}
	if cfg.Linger <= 0 {
		cfg.Linger = cfg.Every
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Sealer{cfg: cfg, deps: deps,
		sealed:     prometheus.NewCounter(prometheus.CounterOpts{Name: "auditlog_log_sealed_events_total", Help: "Events appended to their tenant's verifiable log."}),
		rounds:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_log_seal_rounds_total", Help: "Sealing rounds, by outcome (sealed, idle, conflict, error)."}, []string{"outcome"}),
		unaccepted: newUnacceptedLog(),
	}
	if deps.Registry != nil {
		deps.Registry.MustRegister(s.sealed, s.rounds, s.unaccepted.total)
	}
	return s
}

// Unaccepted is what this sealer refused since it started: the count and
// the latest rows (for /healthz).
func (s *Sealer) Unaccepted() (int64, []Unaccepted) { return s.unaccepted.snapshot() }

// Run seals until ctx ends: rounds back to back while full batches are
// pending, cfg.Linger apart while fewer come, one every cfg.Every when
// none are pending.
func (s *Sealer) Run(ctx context.Context) {
	for {
		_, handled, err := s.round(ctx)
		pause := s.cfg.Every
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && audit.ErrorCode(err) != audit.ECONFLICT:
			s.deps.Logger.Warn("sealing round failed; retrying", "err", err)
		case handled >= s.cfg.Batch || audit.ErrorCode(err) == audit.ECONFLICT:
			continue
		case handled > 0:
			pause = s.cfg.Linger
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

// Round seals the events pending at its start (at most cfg.Batch) and
// returns how many. A pending row whose acceptance tag does not verify
// (or that is no event) is not sealed: it is named unaccepted (logged,
// counted, kept for Unaccepted) and the rows behind it are sealed all
// the same; the round's position passes it, so it is named once.
// Errors: ECONFLICT when another sealer committed first (nothing of this
// round is kept), EUNAVAILABLE.
func (s *Sealer) Round(ctx context.Context) (int, error) {
	n, _, err := s.round(ctx)
	return n, err
}

// round is Round, also returning how many pending rows it handled
// (sealed or unaccepted): Run goes on at once while rows come.
func (s *Sealer) round(ctx context.Context) (sealed, handled int, err error) {
	st := s.deps.Store
	pos, rev, err := st.SealPosition(ctx)
	if err != nil {
		return 0, 0, s.outcome("error", err)
	}
	events, next, err := st.PendingLeaves(ctx, pos, s.cfg.Batch)
	if err != nil || len(events) == 0 {
		return 0, 0, s.outcome(map[bool]string{true: "error", false: "idle"}[err != nil], err)
	}
	b := vlog.SealBatch{Leaves: map[string][]vlog.Leaf{}, Hashes: map[string]map[int64]tlog.Hash{}, States: map[string]vlog.State{}, Position: next, Rev: rev}
	trees := map[string]*tree{}
	var refused []Unaccepted
	for _, e := range events {
		if err := e.CheckAccepted(s.deps.Accept); err != nil {
			refused = append(refused, Unaccepted{TenantID: e.TenantID, EventID: e.EventID, Reason: audit.ErrorMessage(err)})
			continue
		}
		t := trees[e.TenantID]
		if t == nil {
			ls, err := st.LogState(ctx, e.TenantID)
			if err != nil {
				return 0, 0, s.outcome("error", err)
			}
			t = &tree{ctx: ctx, store: st, tenant: e.TenantID, size: ls.Size, added: map[int64]tlog.Hash{}}
			trees[e.TenantID] = t
		}
		leaf, err := t.append(e)
		if err != nil {
			return 0, 0, s.outcome("error", err)
		}
		b.Leaves[e.TenantID] = append(b.Leaves[e.TenantID], leaf)
	}
	now := s.deps.Now().UTC()
	for tenant, t := range trees {
		ls, err := s.checkpoint(t, now)
		if err != nil {
			return 0, 0, s.outcome("error", err)
		}
		b.Hashes[tenant], b.States[tenant] = t.added, ls
	}
	if err := st.CommitSeal(ctx, b); err != nil {
		return 0, 0, s.outcome(map[bool]string{true: "conflict", false: "error"}[audit.ErrorCode(err) == audit.ECONFLICT], err)
	}
	s.unaccepted.add(s.deps.Logger, now, refused)
	sealed = len(events) - len(refused)
	s.sealed.Add(float64(sealed))
	s.rounds.WithLabelValues("sealed").Inc()
	if s.deps.OnSealed != nil {
		tenants := make([]string, 0, len(trees))
		for t := range trees {
			tenants = append(tenants, t)
		}
		s.deps.OnSealed(tenants)
	}
	return sealed, len(events), nil
}

func (s *Sealer) outcome(label string, err error) error {
	s.rounds.WithLabelValues(label).Inc()
	return err
}

// checkpoint is t's new state, with its signed checkpoint.
func (s *Sealer) checkpoint(t *tree, now time.Time) (vlog.State, error) {
	root, err := tlog.TreeHash(t.size, t)
	if err != nil {
		return vlog.State{}, audit.Wrap(audit.EINTERNAL, err, "the root of the log of %s", t.tenant)
	}
	cp := vlog.Checkpoint{Origin: vlog.Origin(s.cfg.Origin, t.tenant), Size: t.size, Root: root}
	signer, _, err := NewSigner(cp.Origin, s.deps.Key)
	if err != nil {
		return vlog.State{}, err
	}
	signed, err := note.Sign(&note.Note{Text: cp.Text()}, signer)
	if err != nil {
		return vlog.State{}, audit.Wrap(audit.EINTERNAL, err, "signing the checkpoint of %s", t.tenant)
	}
	return vlog.State{TenantID: t.tenant, Size: t.size, Root: root, Checkpoint: string(signed), SealedAt: now}, nil
}

// tree is a tenant's tree during a round: the stored hashes, and those
// this round adds on top (tlog.HashReader over both). Stored hashes read
// once are kept for the round (read): each appended leaf needs the old
// tree's right edge again.
type tree struct {
	ctx    context.Context
	store  vlog.Store
	tenant string
	size   int64
	added  map[int64]tlog.Hash
	read   map[int64]tlog.Hash
}

func (t *tree) append(e vlog.PendingLeaf) (vlog.Leaf, error) {
	hashes, err := tlog.StoredHashesForRecordHash(t.size, e.Hash, t)
	if err != nil {
		return vlog.Leaf{}, audit.Wrap(audit.EINTERNAL, err, "the tree hashes of %s", e.EventID)
	}
	first := tlog.StoredHashIndex(0, t.size)
	for i, h := range hashes {
		t.added[first+int64(i)] = h
	}
	leaf := vlog.Leaf{Index: t.size, EventID: e.EventID, Hash: e.Hash, Digest: e.Digest}
	t.size++
	return leaf, nil
}

// ReadHashes implements tlog.HashReader.
func (t *tree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	var missing []int64
	for _, idx := range indexes {
		if !t.known(idx) {
			missing = append(missing, idx)
		}
	}
	if len(missing) > 0 {
		stored, err := t.store.ReadLogHashes(t.ctx, t.tenant, missing)
		if err != nil {
			return nil, fmt.Errorf("reading the hashes of the log of %s: %w", t.tenant, err)
		}
		if t.read == nil {
			t.read = map[int64]tlog.Hash{}
		}
		for i, idx := range missing {
			t.read[idx] = stored[i]
		}
	}
	for i, idx := range indexes {
		if h, ok := t.added[idx]; ok {
			out[i] = h
		} else {
			out[i] = t.read[idx]
		}
	}
	return out, nil
}

func (t *tree) known(idx int64) bool {
	_, added := t.added[idx]
	_, read := t.read[idx]
	return added || read
}
