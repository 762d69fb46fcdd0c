package seal

import (
	"context"
	"errors"
	"github.com/auditlog/auditlog/audit/vlog"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/mod/sumdb/tlog"
	"golang.org/x/sync/errgroup"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/tlogwitness"
)

// Cosigner asks witnesses to cosign each tenant's latest checkpoint (C2SP
// tlog-witness), and stores the checkpoint with every cosignature it got
// (vlog.CosignStore), which the API publishes and verifiers requiring
// witnesses read. It never holds up sealing or ingest: a witness that is
// down or refuses is retried later, with a delay that doubles from one
// second to MaxBackoff, and the time a tenant's log has waited is the
// lag (Lag, auditlog_log_cosign_lag_seconds).
type Cosigner struct {
	cfg  CosignConfig
	deps CosignDeps

	mu     sync.Mutex
	dirty  map[string]bool             // tenants sealed since the last pass
	behind map[string]time.Time        // tenants not fully cosigned, since when
	known  map[string]map[string]int64 // witness URL → tenant → size it last cosigned
	// backoff says when to ask again: a witness that did not answer (by
	// its URL), or that refused one tenant's checkpoint (by URL and
	// tenant: a refused or slow tenant never delays another, issue 53).
	backoff map[string]witnessBackoff
	metrics cosignMetrics
}

// CosignConfig is the cosigning section.
type CosignConfig struct {
	Witnesses []tlogwitness.Witness
	// Every is the pause between passes (default 1 s); Rescan how often
	// every tenant of the directory is looked at, not only those sealed
	// meanwhile (default 1 min).
	Every, Rescan time.Duration
	// MaxBackoff bounds the wait before a failing witness is asked again
	// (default 1 min).
	MaxBackoff time.Duration
}

// CosignDeps are what the cosigner needs.
type CosignDeps struct {
	Log      vlog.Store
	Cosigned vlog.CosignStore
	Tenants  audit.TenantDirectory
	Logger   *slog.Logger
	Registry prometheus.Registerer // nil: metrics not registered
	Now      func() time.Time
}

type witnessBackoff struct {
	until time.Time
	delay time.Duration
}

type cosignMetrics struct {
	lag     prometheus.Gauge
	answers *prometheus.CounterVec
}

// NewCosigner returns a cosigner of cfg.Witnesses.
func NewCosigner(cfg CosignConfig, deps CosignDeps) *Cosigner {
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.Rescan <= 0 {
		cfg.Rescan = time.Minute
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = time.Minute
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Cosigner{cfg: cfg, deps: deps, dirty: map[string]bool{}, behind: map[string]time.Time{},
		known: map[string]map[string]int64{}, backoff: map[string]witnessBackoff{}}
	c.metrics = cosignMetrics{
		lag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "auditlog_log_cosign_lag_seconds",
			Help: "How long the tenant's log longest without a cosigned latest checkpoint has waited (0: every log is cosigned)."}),
		answers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_log_cosign_requests_total",
			Help: "Checkpoints submitted to witnesses, by witness and outcome (cosigned, conflict, refused, error)."}, []string{"witness", "outcome"}),
	}
	if deps.Registry != nil {
		deps.Registry.MustRegister(c.metrics.lag, c.metrics.answers)
	}
	return c
}

// Sealed marks tenants whose logs grew (the sealer's hook).
func (c *Cosigner) Sealed(tenants []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range tenants {
		c.dirty[t] = true
	}
}

// Lag is how long the log longest waiting for cosignatures has waited.
func (c *Cosigner) Lag() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var oldest time.Time
	for _, since := range c.behind {
		if oldest.IsZero() || since.Before(oldest) {
			oldest = since
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return c.deps.Now().Sub(oldest)
}

// Run cosigns until ctx ends: a pass every cfg.Every over the tenants
// sealed meanwhile and those still behind, and every cfg.Rescan over the
// whole tenant directory.
func (c *Cosigner) Run(ctx context.Context) {
	var rescanned time.Time
	for ctx.Err() == nil {
		full := c.deps.Now().Sub(rescanned) >= c.cfg.Rescan
		if err := c.Pass(ctx, full); err != nil && ctx.Err() == nil {
			c.deps.Logger.Warn("cosigning pass failed; retrying", "err", err)
		} else if full {
			rescanned = c.deps.Now()
		}
		c.metrics.lag.Set(c.Lag().Seconds())
		select {
		case <-ctx.Done():
		case <-time.After(c.cfg.Every):
		}
	}
}

// Pass cosigns the latest checkpoint of every tenant that needs it: those
// sealed since the last pass, those still behind, and with full every
// tenant of the directory, cosignWorkers tenants at a time, so that one
// whose witness answers slowly holds up no other. Errors: the store's,
// EUNAVAILABLE.
func (c *Cosigner) Pass(ctx context.Context, full bool) error {
	tenants, err := c.pending(ctx, full)
	if err != nil {
		return err
	}
	var g errgroup.Group
	g.SetLimit(cosignWorkers)
	for _, t := range tenants {
		g.Go(func() error {
			err := c.tenant(ctx, t)
			if err != nil {
				c.Sealed([]string{t}) // looked at again next pass
			}
			return err
		})
	}
	return g.Wait()
}

// cosignWorkers is how many tenants a pass cosigns at once.
const cosignWorkers = 8

// pending takes the tenants to look at.
func (c *Cosigner) pending(ctx context.Context, full bool) ([]string, error) {
	c.mu.Lock()
	set := c.dirty
	c.dirty = map[string]bool{}
	for t := range c.behind {
		set[t] = true
	}
	c.mu.Unlock()
	if full {
		after := ""
		for {
			page, err := c.deps.Tenants.Tenants(ctx, after, audit.MaxTenantPage)
			if err != nil {
				return nil, err
			}
			for _, t := range page {
				set[t.ID] = true
			}
			if len(page) < audit.MaxTenantPage {
				break
			}
			after = page[len(page)-1].ID
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	return out, nil
}

// tenant gathers the cosignatures of the tenant's latest checkpoint that
// it lacks, from every witness not waiting out a failure, and stores the
// checkpoint with them.
func (c *Cosigner) tenant(ctx context.Context, tenant string) error {
	st, err := c.deps.Log.LogState(ctx, tenant)
	if err != nil || st.Checkpoint == "" {
		return err
	}
	cur, err := c.deps.Cosigned.CosignedCheckpoint(ctx, tenant)
	if err != nil {
		return err
	}
	if cur.Size > st.Size || cur.Holds(st.Checkpoint) {
		c.caughtUp(tenant) // cosigned, or a bigger tree was (a log that went back is the witnesses' to refuse)
		return nil
	}
	c.markBehind(tenant, st.SealedAt)
	lines := c.gather(ctx, tenant, st)
	if len(lines) == 0 {
		return nil
	}
	note := st.Checkpoint
	for _, l := range lines {
		note += string(l)
	}
	if err := c.deps.Cosigned.SaveCosigned(ctx, tenant, vlog.CosignedCheckpoint{Size: st.Size, Note: note, At: c.deps.Now().UTC()}); err != nil {
		return err
	}
	if len(lines) == len(c.cfg.Witnesses) {
		c.caughtUp(tenant)
	}
	return nil
}

func (c *Cosigner) markBehind(tenant string, since time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.behind[tenant]; !ok {
		c.behind[tenant] = since
	}
}

func (c *Cosigner) caughtUp(tenant string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.behind, tenant)
}

// gather asks every witness at once and returns the cosignature lines
// that verified.
func (c *Cosigner) gather(ctx context.Context, tenant string, st vlog.State) [][]byte {
	var wg sync.WaitGroup
	lines := make([][]byte, len(c.cfg.Witnesses))
	for i, w := range c.cfg.Witnesses {
		if !c.ready(w.URL, tenant) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines[i] = c.ask(ctx, w, tenant, st)
		}()
	}
	wg.Wait()
	var out [][]byte
	for _, l := range lines {
		if l != nil {
			out = append(out, l)
		}
	}
	return out
}

// ask submits the checkpoint to w with a proof from the size w last saw
// (learned from a 409 when unknown), and returns w's cosignature or nil.
func (c *Cosigner) ask(ctx context.Context, w tlogwitness.Witness, tenant string, st vlog.State) []byte {
	old := c.knownSize(w.URL, tenant)
	for attempt := 0; attempt < 2; attempt++ {
		proof, err := c.proof(ctx, tenant, old, st.Size)
		if err != nil {
			c.failed(w, tenant, "error", err)
			return nil
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		line, err := w.AddCheckpoint(cctx, old, proof, []byte(st.Checkpoint))
		cancel()
		var conflict *tlogwitness.ConflictError
		switch {
		case err == nil:
			c.succeeded(w, tenant, st.Size)
			return line
		case errors.As(err, &conflict) && conflict.Known <= st.Size && conflict.Known != old:
			c.metrics.answers.WithLabelValues(w.Key.Name(), "conflict").Inc()
			old = conflict.Known
			continue
		case errors.As(err, &conflict):
			c.deps.Logger.Error("a witness knows a bigger log than this one: a rollback or a fork of the log", "witness", w.Key.Name(), "tenant", tenant, "witness_size", conflict.Known, "size", st.Size)
			c.failed(w, tenant, "conflict", err)
			return nil
		case errors.Is(err, tlogwitness.ErrRefused):
			c.failed(w, tenant, "refused", err)
			return nil
		default: // no answer: the witness waits, for every tenant
			c.failed(w, "", "error", err)
			return nil
		}
	}
	return nil
}

// proof is the consistency proof from old to size (none from 0).
func (c *Cosigner) proof(ctx context.Context, tenant string, old, size int64) (tlog.TreeProof, error) {
	if old == 0 || old == size {
		return nil, nil
	}
	p, err := ProveConsistency(ctx, c.deps.Log, tenant, old, size)
	return p.Proof, err
}

// ready reports whether w may be asked of the tenant now: neither it nor
// its answer for the tenant waits out a failure.
func (c *Cosigner) ready(url, tenant string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.deps.Now()
	return !now.Before(c.backoff[url].until) && !now.Before(c.backoff[backoffKey(url, tenant)].until)
}

// backoffKey is the backoff of a witness's answers for one tenant ("":
// the witness itself, which did not answer).
func backoffKey(url, tenant string) string {
	if tenant == "" {
		return url
	}
	return url + "\x00" + tenant
}

// knownSize is the size w last cosigned of the tenant's log (0: none
// known; a 409 then says).
func (c *Cosigner) knownSize(url, tenant string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.known[url][tenant]
}

func (c *Cosigner) succeeded(w tlogwitness.Witness, tenant string, size int64) {
	c.metrics.answers.WithLabelValues(w.Key.Name(), "cosigned").Inc()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known[w.URL] == nil {
		c.known[w.URL] = map[string]int64{}
	}
	c.known[w.URL][tenant] = size
	delete(c.backoff, w.URL)
	delete(c.backoff, backoffKey(w.URL, tenant))
}

// failed counts the failure and makes w wait for the tenant (for every
// tenant when tenant is "": it did not answer): one second, doubling to
// cfg.MaxBackoff while it keeps failing.
func (c *Cosigner) failed(w tlogwitness.Witness, tenant, outcome string, err error) {
	c.metrics.answers.WithLabelValues(w.Key.Name(), outcome).Inc()
	c.mu.Lock()
	k := backoffKey(w.URL, tenant)
	b := c.backoff[k]
	b.delay = min(max(2*b.delay, time.Second), c.cfg.MaxBackoff)
	b.until = c.deps.Now().Add(b.delay)
	c.backoff[k] = b
	c.mu.Unlock()
	c.deps.Logger.Warn("a witness did not cosign; asking again later", "witness", w.Key.Name(), "url", w.URL, "tenant", tenant, "outcome", outcome, "retry_in", b.delay, "err", err)
}
