// Command auditlog is the audit log service: the API (serve), the
// Kafka→Elasticsearch indexer (index), a development token minter (token)
// and its version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/auditlog/auditlog/internal/didyoumean"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/indexer"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `auditlog: a multi-tenant audit log for the contact-center platform.

Usage:
  auditlog <command> [flags]

Commands:
  serve     run the HTTP API (GET /api/audit-logs, export, ingest, panel)
  index     run the Kafka → Elasticsearch indexer
  stream    deliver the tenants' streams from Elasticsearch (the embedded store's serve delivers them itself);
            stream check: prove an S3 stream's bucket complete and unaltered
  token     print a signed development JWT for a tenant and role
  tenant    list tenants, show or set a tenant's plan, promote a tenant (tenant list|show|set-plan|promote|periodic)
  gen       generate realistic events: NDJSON, HTTP ingest or Kafka
  healthcheck  exit 0 when the serve or index on AUDITLOG_HTTP_ADDR is ready
  backup    copy the embedded store's data directory, consistent while serve runs
  verify    check a tenant's periodic export offline: its signed digest chain and files
  log       log verify: check a tenant's verifiable log in the store against a signed checkpoint and a pinned key
  witness   keep tenants' log checkpoints and fail loudly on a fork or a rollback
  version   print the version

Every flag can also be set by its AUDITLOG_* environment variable; a flag
wins over its variable. "auditlog <command> --help" lists them.
`

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// commandNames are the names run takes, for an unknown one's "did you mean".
var commandNames = []string{"serve", "index", "stream", "token", "tenant", "gen", "healthcheck", "backup", "verify", "log", "witness", "export-periodic", "version", "help"}

// run is main without the process: tests call it with their own
// arguments, environment and outputs.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "stream":
		if len(rest) > 0 && rest[0] == "check" {
			err = runStreamCheck(rest[1:], getenv, stdout, stderr)
		} else {
			err = runServer(cmd, rest, getenv, stdout, stderr)
		}
	case "serve", "index":
		err = runServer(cmd, rest, getenv, stdout, stderr)
	case "token":
		err = runToken(rest, getenv, stdout, stderr)
	case "tenant":
		err = runTenant(rest, getenv, stdout, stderr)
	case "gen":
		err = runGen(rest, getenv, stdout, stderr)
	case "healthcheck":
		err = runHealthcheck(rest, getenv, stdout, stderr)
	case "backup":
		err = runBackup(rest, getenv, stdout, stderr)
	case "verify":
		err = runVerify(rest, getenv, stdout, stderr)
	case "log":
		err = runLog(rest, getenv, stdout, stderr)
	case "witness":
		err = runWitness(rest, getenv, stdout, stderr)
	case "export-periodic":
		err = runExportPeriodic(rest, getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "auditlog", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "auditlog: unknown command %q%s\n\n%s", cmd, didyoumean.Suggest(cmd, commandNames), usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "auditlog %s: %v\n", cmd, err)
		return 2
	case errors.Is(err, errUnchecked), errors.Is(err, errCouldNotCheck):
		fmt.Fprintf(stderr, "auditlog %s: %v\n", cmd, err)
		return 3
	default:
		fmt.Fprintf(stderr, "auditlog %s: %v\n", cmd, err)
		return 1
	}
}

const serveUsage = `Usage: auditlog serve [flags]

Serves the API (/api/...), the admin panel (/settings/audit/) and HTTP
ingest, on the embedded SQLite store by default or on Elasticsearch
(--store elasticsearch), and runs the export jobs, periodic exports,
retention and the verifiable log's sealing beside them.
`

const indexUsage = `Usage: auditlog index [flags]

Consumes audit events from Kafka, validates them (invalid ones go to the
dead-letter topic with the reason) and writes them into the tenants'
Elasticsearch data streams; offsets are committed once a batch is stored.
`

const streamUsage = `Usage: auditlog stream [flags]

Delivers the tenants' streams (Splunk HEC, webhooks) from Elasticsearch:
each replica takes streams by lease, reads each tenant's verifiable log in
sealed order, and moves a stream's cursor once its destination accepted a
batch. Run as many as you like; a dead replica's streams move to the others.
`

// parseServerConfig binds the flags of serve or index.
func parseServerConfig(cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) (Config, *binder, error) {
	var c Config
	b := newBinder("auditlog "+cmd, getenv, stderr)
	bindServer(cmd, b, &c)
	switch cmd {
	case "serve":
		b.describe(stdout, serveUsage, "HTTP", "Auth", "Store", "Logging")
	case "stream":
		b.describe(stdout, streamUsage, "HTTP", "Elasticsearch", "Streams", "Logging")
	default:
		b.describe(stdout, indexUsage, "HTTP", "Elasticsearch", "Kafka", "Logging")
	}
	if err := b.parse(args); err != nil {
		return c, b, err
	}
	if cmd == "stream" && c.ES.URL == "" {
		return c, b, fmt.Errorf("configuration: AUDITLOG_ES_URL must be set: the streams are read from Elasticsearch")
	}
	if cmd == "stream" {
		// It writes the records of the pauses it makes: tagged as every
		// event the service accepts.
		if errs := c.Keys.check(&c, true); len(errs) > 0 {
			return c, b, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
		}
	}
	if cmd == "index" {
		var errs []string
		if c.ES.URL == "" {
			errs = append(errs, "AUDITLOG_ES_URL must be set: the indexer writes to Elasticsearch")
		}
		if c.Kafka.Brokers == "" {
			errs = append(errs, "AUDITLOG_KAFKA_BROKERS must be set: the indexer reads from Kafka")
		}
		errs = append(errs, c.Keys.check(&c, true)...)
		if len(errs) > 0 {
			return c, b, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
		}
	}
	if c.Kafka.DLQTopic == "" {
		c.Kafka.DLQTopic = c.Kafka.Topic + ".dlq"
	}
	if cmd == "serve" && c.Store == "sqlite" && c.JWTSecret == "" && countSet(c.JWTPublicKey, c.JWKSURL, c.OIDCIssuer) == 0 && c.DataDir != "" {
		secret, path, err := devSecret(c.DataDir, true)
		if err != nil {
			return c, b, err
		}
		c.JWTSecret, c.DevSecretPath = secret, path
	}
	return c, b, c.validate(cmd == "serve")
}

// bindServer registers the options of serve or index.
func bindServer(cmd string, b *binder, c *Config) {
	switch cmd {
	case "serve":
		b.common(c, "127.0.0.1:8080")
		b.store(c)
		b.duration(&c.RequestTimeout, "request-timeout", "AUDITLOG_REQUEST_TIMEOUT", 15*time.Second, "time limit of one API request")
		b.auth(c)
		b.api(c)
		b.int(&c.Seed, "seed", "AUDITLOG_SEED", 0, "load this many generated demo events at start when the store is empty (make demo)")
		b.str(&c.SeedTenant, "seed-tenant", "AUDITLOG_SEED_TENANT", "7c9e6679-7425-40de-944b-e07fc1f90ae7", "the demo tenant that gets the biggest share of the seeded events")
		b.str(&c.SeedEnd, "seed-end", "AUDITLOG_SEED_END", DemoEnd, "end of the 30 days the seeded events span: RFC 3339 (fixed by default, so the demo's ids are the documentation's) or now")
		b.secret(&c.IngestToken, "ingest-token", "AUDITLOG_INGEST_TOKEN", "static service credential for POST /api/audit-events")
		b.kafka(c)
		b.lifecycle(c)
		b.sensitive(c)
		b.export(c)
		b.restore(c)
		b.periodic(c)
		b.tlog(c)
		b.streams(c, true)
		b.panel(c)
	case "index":
		b.common(c, "127.0.0.1:8081")
		c.Store = "elasticsearch"
		b.elasticsearch(c)
		b.kafka(c)
		b.lifecycle(c)
		b.sensitive(c)
		b.logSeal(c, "queue every event written for sealing into its tenant's verifiable log (serve seals); false only when no serve seals")
		b.keys(c)
	case "stream":
		b.common(c, "127.0.0.1:8082")
		c.Store = "elasticsearch"
		b.elasticsearch(c)
		b.streams(c, false)
		b.keys(c)
		c.Streams.Run = "on"
		b.str(&c.Export.PublicURL, "public-url", "AUDITLOG_PUBLIC_URL", "", "base URL of the service (serve) as users reach it, for the links in e-mails")
		b.str(&c.DataDir, "data-dir", "AUDITLOG_DATA_DIR", "./data", "directory of the e-mail outbox when no SMTP host is set")
		b.smtp(&c.Export)
		b.s3(&c.Export)
		b.boolean(&c.Export.S3Create, "s3-create-bucket", "AUDITLOG_S3_CREATE_BUCKET", false, "create an S3 stream's bucket when it is missing")
		b.str(&c.Periodic.SigningKey, "periodic-signing-key", "AUDITLOG_PERIODIC_SIGNING_KEY", "",
			"PEM file (PKCS #8, mode 0600) of the Ed25519 key that signs S3 streams' manifests (serve's key); required with AUDITLOG_S3_ENDPOINT")
	}
}

// runServer runs serve or index until SIGTERM or SIGINT, then shuts down
// gracefully: stop taking work, flush, commit, close.
func runServer(cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, b, err := parseServerConfig(cmd, args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	logger := newLogger(&cfg, stdout)
	logger.Info("starting", append([]any{"command", cmd, "version", version, "store", cfg.Store, "http-addr", cfg.HTTPAddr}, b.changed("store", "http-addr")...)...)
	logger.Debug("configuration", b.resolved()...)
	if cmd == "index" {
		logger.Info("garbage collector", "GOGC", indexGC(getenv))
	}
	for _, u := range unknownVars(environ()) {
		logger.Warn("unknown configuration variable: ignored", "problem", u)
	}
	if cfg.DevSecretPath != "" {
		logger.Warn("no AUDITLOG_JWT_SECRET: tokens are verified with the development secret of the data directory; `auditlog token` uses it too. Set a secret or a public key in production",
			"file", cfg.DevSecretPath)
	}

	if cfg.CPUProfile != "" {
		stopProfile, err := startCPUProfile(cfg.CPUProfile)
		if err != nil {
			return err
		}
		defer func() {
			if err := stopProfile(); err != nil {
				logger.Error("CPU profile not written", "file", cfg.CPUProfile, "err", err)
				return
			}
			logger.Info("CPU profile written", "file", cfg.CPUProfile)
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	m := NewMain(cmd, cfg, logger)
	if err := m.Run(ctx); err != nil {
		_ = m.Close()
		return err
	}
	logger.Info("listening", "addr", m.Addr())
	select {
	case <-ctx.Done():
		logger.Info("shutting down", "signal", "received")
	case err = <-m.Failed():
		logger.Error("a component failed; shutting down", "err", err)
	}
	if cerr := m.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// runToken mints a development JWT with the server's secret (or the
// development secret of the data directory).
func runToken(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c Config
	var tenant, role, email, user, reason string
	var ttl time.Duration
	b := newBinder("auditlog token", getenv, stderr)
	b.signing(&c)
	b.str(&c.DataDir, "data-dir", "AUDITLOG_DATA_DIR", "./data", "data directory whose development secret is used when no secret is set")
	b.fs.StringVar(&tenant, "tenant", "", "tenant UUID (required, except for role ingest)")
	b.fs.StringVar(&role, "role", audit.RoleAdmin, "role: admin, superadmin, legal_hold (a tenant's holder of legal holds) or ingest")
	b.fs.StringVar(&email, "email", "", "e-mail of the user (default <role>@example.com)")
	b.fs.StringVar(&user, "user", "", "user UUID (default: derived from the e-mail, so tokens for one e-mail are one user)")
	b.fs.StringVar(&reason, "reason", "", "declared reason of a superadmin access")
	b.fs.DurationVar(&ttl, "ttl", 12*time.Hour, "lifetime of the token (1m to 30d)")
	initSecret := b.fs.Bool("init-dev-secret", false, "with no secret configured, write the data directory's development secret first if it is missing (as serve does on its first start)")
	b.describe(stdout, "Usage: auditlog token --tenant <uuid> --role <role> [--email <e>] [--user <uuid>] [--reason <text>] [--ttl <duration>]\n\n"+
		"Prints a signed JWT on stdout, signed with AUDITLOG_JWT_SECRET (the server's secret) or, when it is not set, the\n"+
		"development secret that `auditlog serve` writes into the data directory on the embedded store.\n")
	if err := b.parse(args); err != nil {
		return err
	}
	switch role {
	case audit.RoleAdmin, audit.RoleSuperadmin, hold.Role:
		if tenant == "" {
			return fmt.Errorf("--tenant is missing: the tenant's UUID (role %s acts inside one tenant)", role)
		}
	case audit.RoleIngest:
	default:
		return fmt.Errorf("--role %q: want admin, superadmin, legal_hold or ingest (the roles the server accepts)", role)
	}
	if ttl < time.Minute || ttl > 30*24*time.Hour {
		return fmt.Errorf("--ttl %s: want 1m to 720h", ttl)
	}
	if c.JWTSecret == "" {
		s, _, err := devSecret(c.DataDir, *initSecret)
		if err != nil {
			return err
		}
		c.JWTSecret = s
	}
	if email == "" {
		email = role + "@example.com"
	}
	if user == "" && role != audit.RoleIngest {
		user = devUserID(email)
	}
	if role == audit.RoleSuperadmin && strings.TrimSpace(reason) == "" {
		fmt.Fprintln(stderr, "note: a superadmin token without --reason must send X-Access-Reason on every request")
	}
	mc := api.MintConfig{Secret: []byte(c.JWTSecret), Issuer: claimCheck(c.JWTIssuer), Audience: claimCheck(c.JWTAudience)}
	tok, err := api.Mint(mc, audit.Principal{UserID: user, Email: email, Role: role, TenantID: tenant, Reason: reason}, ttl, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// indexGC sets the collector of `auditlog index` to indexer.GCPercent,
// unless GOGC is set (Go's own variable, which the runtime has applied),
// and returns the setting in force.
func indexGC(getenv func(string) string) string {
	if v := getenv("GOGC"); v != "" {
		return v
	}
	debug.SetGCPercent(indexer.GCPercent)
	return strconv.Itoa(indexer.GCPercent)
}
