package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/mask"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/indexer"
	"github.com/auditlog/auditlog/kafka"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/smtp"
)

// Main is the wired program of one command (serve or index). Run opens
// every dependency and starts serving; Close shuts it all down in reverse
// order. End-to-end tests run it on port :0 with a temporary directory.
type Main struct {
	Command  string
	Config   Config
	Logger   *slog.Logger
	Registry *prometheus.Registry

	ln       net.Listener
	http     *http.Server
	handler  handlerSwitch // 503 "starting" until the wiring is done
	httpDown bool          // Close shut the server down
	closers  []func(context.Context) error
	failed   chan error
	signing  *signingKeySet // loaded once (signingkey.go)
	accept   *vlog.Acceptor // loaded once (acceptkey.go)
}

// NewMain returns a Main for cmd with the resolved configuration.
func NewMain(cmd string, cfg Config, logger *slog.Logger) *Main {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Main{Command: cmd, Config: cfg, Logger: logger, Registry: reg, failed: make(chan error, 4)}
}

// Addr is the address the HTTP server listens on (useful with port :0).
func (m *Main) Addr() string {
	if m.ln == nil {
		return ""
	}
	return m.ln.Addr().String()
}

// Failed delivers the error of a background component that stopped on
// its own; the caller then shuts down.
func (m *Main) Failed() <-chan error { return m.failed }

func (m *Main) onClose(f func(context.Context) error) { m.closers = append(m.closers, f) }

// Run opens the dependencies and starts the HTTP server. It returns once
// everything is started; the work goes on in the background until Close.
func (m *Main) Run(ctx context.Context) error {
	switch m.Command {
	case "index":
		return m.runIndex(ctx)
	case "stream":
		return m.runStream(ctx)
	}
	return m.runServe(ctx)
}

func (m *Main) esClient() (*elasticsearch.Client, error) {
	cfg := m.Config
	return elasticsearch.New(elasticsearch.Config{
		URLs: splitList(cfg.ES.URL), Username: cfg.ES.Username, Password: cfg.ES.Password,
		APIKey: cfg.ES.APIKey, IndexPrefix: cfg.ES.IndexPrefix, Replicas: cfg.ES.Replicas,
	})
}

func (m *Main) defaultPlan() (audit.Plan, error) { return audit.ParsePlan(m.Config.DefaultPlan) }

func (m *Main) runServe(ctx context.Context) error {
	cfg := m.Config
	// Listen first: the links in export e-mails need the address. Until
	// the wiring is done every request gets a fast 503 (starting.go).
	if err := m.startHTTP(); err != nil {
		return err
	}
	opened, err := m.openStore(ctx)
	if err != nil {
		return err
	}
	store := opened.store
	read, err := m.readDeps(store, store)
	if err != nil {
		return err
	}
	policy, err := m.sensitivePolicy()
	if err != nil {
		return err
	}
	plan, err := m.defaultPlan()
	if err != nil {
		return err
	}
	gate := &retention.Gate{Directory: store, Default: plan}
	read.Saved = store
	deps := api.Deps{Logger: m.Logger, Registry: m.Registry, Read: read, Ready: []api.ReadinessCheck{opened.ready},
		Ingest: api.IngestDeps{Writer: store, StaticToken: cfg.IngestToken, Verifier: read.Verifier, Sensitive: policy, Retention: gate}}
	if opened.retention != nil {
		m.background(ctx, "retention", opened.retention)
	}
	svc, ready, err := m.exportService(ctx, store, store)
	if err != nil {
		return err
	}
	deps.Export = api.ExportDeps{Service: svc}
	if deps.Restore, err = m.restoreService(ctx, store); err != nil {
		return err
	}
	deps.Ready = append(deps.Ready, ready...)
	m.background(ctx, "export jobs", svc.Run)
	if cfg.Seed > 0 {
		if err := m.seed(ctx, store, store); err != nil {
			return err
		}
	}
	sch, err := m.periodicScheduler(ctx, store)
	if err != nil {
		return err
	}
	deps.Periodic = api.PeriodicDeps{Store: store, Tenants: store, DefaultPlan: plan, Keys: exportKeys(sch), Bucket: sch.Bucket}
	// After the seed, so that the first pass exports the demo's windows.
	if cfg.Periodic.Run {
		m.background(ctx, "periodic export", func(bg context.Context) { sch.Run(bg, cfg.Periodic.Every) })
	}
	if brokers := splitList(cfg.Kafka.Brokers); len(brokers) > 0 {
		ix := m.consume(ctx, brokers, store, policy, gate)
		deps.Ready = append(deps.Ready, api.ReadinessCheck{Name: "kafka", Check: func(ctx context.Context) error { return kafka.Ping(ctx, brokers) }},
			api.ReadinessCheck{Name: "consumer", Check: ix.Ready})
	}
	if deps.Log, err = m.startSealer(ctx, store); err != nil {
		return err
	}
	if deps.Stream, err = m.startStreams(ctx, store, deps.Log.Store); err != nil {
		return err
	}
	deps.Hold = api.HoldDeps{Service: &hold.Service{Log: opened.raw, Grace: cfg.Retention.HoldGrace, DefaultPlan: plan},
		Plans: store, Unhonoured: opened.unhonoured,
		Export: func(ctx context.Context, out io.Writer, h hold.Hold) error {
			return sch.ExportHold(ctx, out, h, opened.raw, opened.raw)
		}}
	srv := api.NewServer(api.Config{RequestTimeout: cfg.RequestTimeout, TrustedProxies: splitList(cfg.TrustedProxies),
		Shed: api.ShedConfig{Global: cfg.MaxInFlight, PerTenant: cfg.MaxInFlightPerTenant}}, deps)
	ancestors, _ := frameAncestors(cfg.PanelFrameAncestors) // checked by validate
	mountPanel(srv.Engine(), ancestors)
	return m.serveHTTP(srv.Handler())
}

// DemoEnd ends the 30 days of the seeded demo events by default. It is
// fixed, so that the demo is the same on every machine and the documentation can
// show real ids and ranges; AUDITLOG_SEED_END=now makes recent events.
const DemoEnd = "2026-11-22T00:00:00Z"

// seed loads cfg.Seed generated events (the demo tenant gets the biggest
// share) when the demo tenant has no events yet, so a restart does not
// add more; when it has, it says so and how to reset.
// demoVersions is how many IVRs, recording policies and queues of each
// demo tenant its updates change, one version after another, so that the
// demo's resources have histories to compare and restore.
const demoVersions = 30

func (m *Main) seed(ctx context.Context, r audit.EventReader, w audit.EventWriter) error {
	cfg := m.Config
	res, err := r.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: cfg.SeedTenant}, Sort: audit.DefaultSort, PageSize: 1, Page: 1})
	if err != nil {
		return err
	}
	if res.Total.Value > 0 {
		m.Logger.Warn("demo events NOT loaded: the demo tenant has events already (the seed loads only into an empty tenant, so a restart adds nothing); "+
			"to reload, stop the server, delete the data directory and start again", "tenant", cfg.SeedTenant, "data_dir", cfg.DataDir,
			"reset", "rm -rf "+cfg.DataDir+" && make demo")
		return nil
	}
	end := time.Now().UTC()
	if cfg.SeedEnd != "now" {
		end, _ = time.Parse(time.RFC3339, cfg.SeedEnd) // checked by validate
	}
	g := gen.New(gen.Config{Seed: 1, Tenants: 5, Skew: 1.2, WithIDs: true, FirstTenantID: cfg.SeedTenant, Versions: demoVersions,
		Start: end.Add(-30 * 24 * time.Hour), End: end}, cfg.Seed)
	for i := 0; i < cfg.Seed; i += 500 {
		batch := make([]audit.Event, 0, 500)
		for j := i; j < min(i+500, cfg.Seed); j++ {
			batch = append(batch, g.Next())
		}
		if _, err := w.WriteEvents(ctx, batch); err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
	}
	m.Logger.Info("seeded demo events", "events", cfg.Seed, "tenant", cfg.SeedTenant)
	return nil
}

// consume runs, in the background, a Kafka consumer into the store of
// serve (with AUDITLOG_KAFKA_BROKERS set): the embedded store can be fed
// from Kafka too. It retries while Kafka is down and stops on Close.
func (m *Main) consume(ctx context.Context, brokers []string, w audit.EventWriter, policy *mask.Policy, gate *retention.Gate) *indexer.Indexer {
	ix := indexer.New(m.indexerConfig(brokers), indexer.Deps{Store: w, Logger: m.Logger, Registry: m.Registry, Sensitive: policy, Retention: gate})
	m.background(ctx, "consumer", func(bg context.Context) {
		if ix.Setup(bg) != nil {
			return
		}
		if err := ix.Run(bg); err != nil {
			m.failed <- fmt.Errorf("consumer: %w", err)
		}
	})
	return ix
}

// indexerConfig maps the Kafka section to the indexer's configuration.
func (m *Main) indexerConfig(brokers []string) indexer.Config {
	cfg := m.Config
	return indexer.Config{
		Brokers: brokers, Topic: cfg.Kafka.Topic, DLQTopic: cfg.Kafka.DLQTopic, Group: cfg.Kafka.Group,
		Partitions: cfg.Kafka.Partitions, BatchSize: cfg.Kafka.Indexer.BatchSize, BatchBytes: cfg.Kafka.Indexer.BatchBytes,
		Linger: cfg.Kafka.Indexer.Linger, DrainTimeout: cfg.ShutdownTimeout * 3 / 4,
		SessionTimeout: cfg.Kafka.SessionTimeout, HeartbeatInterval: cfg.Kafka.HeartbeatInterval,
		RebalanceTimeout: cfg.Kafka.RebalanceTimeout, StallAfter: cfg.Kafka.StallAfter,
	}
}

// background runs f in a goroutine with a context that Close cancels;
// Close then waits for f to return, within its shutdown deadline.
func (m *Main) background(ctx context.Context, name string, f func(bg context.Context)) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(bg)
	}()
	m.onClose(func(ctx context.Context) error {
		cancel()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("%s did not stop in time: %w", name, ctx.Err())
		}
	})
}

// readDeps builds the auth, cursor and rate-limit pieces of the read API.
func (m *Main) readDeps(r api.Reader, w audit.EventWriter) (api.ReadDeps, error) {
	cfg := m.Config
	ac := api.AuthConfig{Secret: []byte(cfg.JWTSecret)}
	if cfg.JWTPublicKey != "" {
		pemBytes, err := os.ReadFile(cfg.JWTPublicKey)
		if err != nil {
			return api.ReadDeps{}, fmt.Errorf("AUDITLOG_JWT_PUBLIC_KEY: %w", err)
		}
		key, err := jwt.ParseRSAPublicKeyFromPEM(pemBytes)
		if err != nil {
			return api.ReadDeps{}, fmt.Errorf("AUDITLOG_JWT_PUBLIC_KEY: %w", err)
		}
		ac = api.AuthConfig{PublicKey: key}
	}
	ac.Issuer, ac.Audience = claimCheck(cfg.JWTIssuer), claimCheck(cfg.JWTAudience)
	if cfg.JWKSURL != "" || cfg.OIDCIssuer != "" {
		keys, issuer, err := m.identityProvider()
		if err != nil {
			return api.ReadDeps{}, err
		}
		ac = api.AuthConfig{Keys: keys, Issuer: ac.Issuer, Audience: ac.Audience}
		if issuer != "" {
			ac.Issuer = issuer
		}
	}
	ac.Claims = cfg.Claims
	v, err := api.NewVerifier(ac)
	if err != nil {
		return api.ReadDeps{}, err
	}
	cursorKey := []byte(cfg.CursorSecret)
	if len(cursorKey) == 0 {
		if cfg.JWTSecret == "" {
			return api.ReadDeps{}, fmt.Errorf("AUDITLOG_CURSOR_SECRET must be set when tokens are verified with a public key or a JWKS")
		}
		mac := hmac.New(sha256.New, []byte(cfg.JWTSecret))
		mac.Write([]byte("auditlog cursor key"))
		cursorKey = mac.Sum(nil)
	}
	return api.ReadDeps{Reader: r, Writer: w, Verifier: v, Cursors: cursor.NewCodec(cursorKey),
		Limiter: api.NewRateLimiter(float64(cfg.RateLimit), cfg.RateBurst, nil)}, nil
}

// runIndex serves health and metrics at once, then, in the background and
// retrying while Elasticsearch or Kafka is down: detects the cluster,
// installs templates and policies, creates the topics, starts the
// lifecycle worker where the cluster has no ILM, and consumes.
func (m *Main) runIndex(ctx context.Context) error {
	cfg := m.Config
	plan, err := m.defaultPlan()
	if err != nil {
		return err
	}
	client, err := m.esClient()
	if err != nil {
		return err
	}
	brokers := splitList(cfg.Kafka.Brokers)
	var running atomic.Pointer[indexer.Indexer]
	ready := []api.ReadinessCheck{
		{Name: "elasticsearch", Check: client.Ping},
		{Name: "kafka", Check: func(ctx context.Context) error { return kafka.Ping(ctx, brokers) }},
		{Name: "indexer", Check: func(ctx context.Context) error {
			ix := running.Load()
			if ix == nil {
				return fmt.Errorf("bootstrapping")
			}
			return ix.Ready(ctx)
		}},
	}
	srv := api.NewServer(api.Config{}, api.Deps{Logger: m.Logger, Registry: m.Registry, Ready: ready})
	if err := m.serveHTTP(srv.Handler()); err != nil {
		return err
	}

	m.background(ctx, "indexer", func(bg context.Context) {
		store, err := m.elasticsearchStore(bg, client, plan, true)
		if err != nil {
			return // bg ended: shutting down
		}
		// The lifecycle worker runs inside this background work, so Close
		// waits for it too. Where ILM enforces retention, it only keeps the
		// tenancy in order (promotions, plan changes' copies).
		if store.ILMOwnsRetention() {
			m.Logger.Info("ILM enforces retention; the lifecycle worker promotes grown tenants and finishes plan changes", "interval", cfg.Retention.Interval)
		} else {
			m.Logger.Info("the built-in lifecycle worker enforces retention and records each deletion in the log", "interval", cfg.Retention.Interval, "ilm", store.Capabilities().ILM)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			refusals := retentionRefusals(m.Registry)
			store.LifecycleLoop(bg, cfg.Retention.Interval, m.Logger.With("component", "lifecycle"), m.Registry,
				func(pass retention.Pass) { reportRetention(m.Logger, refusals, pass) })
		}()
		defer wg.Wait()
		policy, err := m.sensitivePolicy()
		if err != nil {
			m.failed <- fmt.Errorf("indexer: %w", err)
			return
		}
		ix := indexer.New(m.indexerConfig(brokers), indexer.Deps{Store: store, Logger: m.Logger, Registry: m.Registry, Sensitive: policy,
			Retention: &retention.Gate{Directory: store, Default: plan}})
		if ix.Setup(bg) != nil {
			return
		}
		running.Store(ix)
		if err := ix.Run(bg); err != nil {
			m.failed <- fmt.Errorf("indexer: %w", err)
		}
	})
	return nil
}

// exportService builds the export service: the file store (local or S3)
// and the mailer (when an SMTP host is set).
func (m *Main) exportService(ctx context.Context, scanner audit.EventScanner, jobs exportjob.Store) (*export.Service, []api.ReadinessCheck, error) {
	ec := m.Config.Export
	dir := ec.Dir
	if dir == "" {
		dir = filepath.Join(m.Config.DataDir, "exports")
	}
	var ready []api.ReadinessCheck
	var files blob.Store = localfs.Dir{Root: dir}
	if ec.FileStore == "s3" {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		f, err := s3.Open(sctx, s3.Config{Endpoint: ec.S3Endpoint, Region: ec.S3Region, Bucket: ec.S3Bucket, AccessKey: ec.S3AccessKey,
			SecretKey: ec.S3SecretKey, Prefix: ec.S3Prefix, PathStyle: ec.S3PathStyle, CreateBucket: ec.S3Create})
		if err != nil {
			return nil, nil, err
		}
		files = f
		ready = append(ready, api.ReadinessCheck{Name: "s3", Check: f.Ping})
	}
	notifier, err := m.mailer()
	if err != nil {
		return nil, nil, err
	}
	svc := export.New(export.Config{
		Workers: ec.Workers, MaxActivePerTenant: ec.MaxActive, Expiry: ec.Expiry, Lease: ec.Lease, Poll: ec.Poll,
		MaxAttempts: ec.Attempts, RetryDelay: ec.RetryDelay, TempDir: filepath.Join(dir, "tmp"),
		Worker: replicaName(),
	}, export.Deps{Scanner: scanner, Jobs: jobs, Files: files, Notifier: notifier, Logger: m.Logger, Registry: m.Registry})
	return svc, ready, nil
}

// replicaName names this process where replicas take work by lease (the
// export jobs, the streams): its host, its pid, and a random part, so
// that a restarted process with a reused pid is another replica.
func replicaName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), audit.NewID()[10:18])
}

// mailer returns the notifier of export jobs: SMTP when a host is
// configured, otherwise an outbox of .eml files in the data directory, so
// that "you will be e-mailed" holds on a laptop too.
func (m *Main) mailer() (*smtp.Mailer, error) {
	ec := m.Config.Export
	public := ec.PublicURL
	if public == "" {
		public = m.scheme() + "://" + m.Addr()
	}
	cfg := smtp.Config{Host: ec.SMTPHost, Port: ec.SMTPPort, Username: ec.SMTPUser, Password: ec.SMTPPass,
		From: ec.SMTPFrom, StartTLS: ec.SMTPTLS, CAFile: ec.SMTPCAFile, PublicURL: public}
	if ec.SMTPHost != "" {
		return smtp.New(cfg)
	}
	outbox := filepath.Join(m.Config.DataDir, "outbox")
	m.Logger.Info("no SMTP host (AUDITLOG_SMTP_HOST): export e-mails are written as .eml files into the outbox", "outbox", outbox)
	return smtp.NewOutbox(cfg, outbox, m.Logger)
}

func (m *Main) listen() error {
	if m.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", m.Config.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", m.Config.HTTPAddr, err)
	}
	m.ln = ln
	m.onClose(func(context.Context) error {
		if m.http == nil {
			return ln.Close()
		}
		return nil
	})
	return nil
}

// serveHTTP serves h, starting the server if startHTTP has not.
func (m *Main) serveHTTP(h http.Handler) error {
	if err := m.startHTTP(); err != nil {
		return err
	}
	m.handler.set(h)
	return nil
}

// startHTTP listens and serves at once, a fast 503 "starting" to every
// request until serveHTTP hands the server its handler.
func (m *Main) startHTTP() error {
	if m.http != nil {
		return nil
	}
	if err := m.listen(); err != nil {
		return err
	}
	ln := m.ln
	srv := &http.Server{Handler: &m.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		// net/http's own complaints (a failed TLS handshake) go to the
		// service's log, not to stderr.
		ErrorLog: slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn)}
	serve := func() error { return srv.Serve(ln) }
	if m.Config.TLSCert != "" {
		r, err := newCertReloader(m.Config.TLSCert, m.Config.TLSKey, m.Logger)
		if err != nil {
			return err
		}
		srv.TLSConfig = tlsConfig(r)
		serve = func() error { return srv.ServeTLS(ln, "", "") }
	}
	m.http = srv
	go func() {
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.failed <- fmt.Errorf("http server: %w", err)
		}
	}()
	return nil
}

// scheme is how clients reach this server: https when it serves TLS.
func (m *Main) scheme() string {
	if m.Config.TLSCert != "" {
		return "https"
	}
	return "http"
}

// Close stops everything in reverse order of start, within the configured
// shutdown timeout.
func (m *Main) Close() error {
	timeout := m.Config.ShutdownTimeout
	if timeout == 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var errs []error
	// The HTTP server first, whenever it started: no new work while the
	// rest drains.
	if m.http != nil && !m.httpDown {
		errs = append(errs, m.http.Shutdown(ctx))
		m.httpDown = true
	}
	for i := len(m.closers) - 1; i >= 0; i-- {
		if err := m.closers[i](ctx); err != nil {
			errs = append(errs, err)
		}
	}
	m.closers = nil
	return errors.Join(errs...)
}
