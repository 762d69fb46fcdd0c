package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/mask"

	"github.com/auditlog/auditlog/api"
)

// Config is the whole resolved configuration. It is read once, here, from
// flags and AUDITLOG_* environment variables (a flag wins over its
// variable), and handed to components as plain structs.
type Config struct {
	HTTPAddr string
	// TLSCert and TLSKey, when set, are PEM files: the server speaks
	// HTTPS on HTTPAddr, and reads them again when they change (tls.go).
	TLSCert, TLSKey string
	Store           string
	DataDir         string
	LogFormat       string
	LogLevel        string
	ShutdownTimeout time.Duration
	// CPUProfile is the file a CPU profile of the process is written to,
	// from start to shutdown (empty: none).
	CPUProfile     string
	RequestTimeout time.Duration
	Retention      RetentionConfig

	JWTSecret    string
	JWTPublicKey string
	// JWKSURL and OIDCIssuer name an identity provider's keys: a JWKS
	// document, or an OpenID Connect issuer whose discovery document
	// names it (jwks.go). JWKSRefresh is how often they are read again.
	JWKSURL    string
	OIDCIssuer string
	// Claims names the claims a token's caller is read from.
	Claims      api.ClaimNames
	JWKSRefresh time.Duration
	// DevSecretPath is set when JWTSecret is the data directory's
	// development secret (DevSecretFile).
	DevSecretPath  string
	JWTIssuer      string
	JWTAudience    string
	TrustedProxies string
	CursorSecret   string
	Seed           int
	SeedTenant     string
	// SeedEnd is the end of the demo events' 30 days: RFC 3339, or "now".
	SeedEnd   string
	RateLimit int
	RateBurst int
	// MaxInFlight and MaxInFlightPerTenant bound the API requests in
	// flight (api.Shedder).
	MaxInFlight          int
	MaxInFlightPerTenant int
	IngestToken          string
	DefaultPlan          string
	DevTokenTenant       string
	// PanelFrameAncestors is AUDITLOG_PANEL_FRAME_ANCESTORS.
	PanelFrameAncestors string
	// SQLiteCacheMiB is the embedded store's page cache per connection
	// (0: the store's default). No variable sets it: `log verify` sets
	// a small one, as it reads each page once.
	SQLiteCacheMiB int

	ES        ESConfig
	Kafka     KafkaConfig
	Export    ExportConfig
	Sensitive SensitiveConfig
	Restore   RestoreConfig
	Periodic  PeriodicConfig
	Log       LogConfig
	Streams   StreamsConfig
	Keys      KeysConfig
}

// SensitiveConfig is the sensitive-changes section (both entry points
// apply it: HTTP ingest and the Kafka indexer).
type SensitiveConfig struct {
	Types        string
	SecretFields string
	MaskKey      string
}

// ExportConfig is the export section: jobs, where files go, and e-mail.
type ExportConfig struct {
	PublicURL   string
	Workers     int
	MaxActive   int
	Expiry      time.Duration
	Lease       time.Duration
	Poll        time.Duration
	Attempts    int
	RetryDelay  time.Duration
	ScanPage    int
	FileStore   string
	Dir         string
	S3Endpoint  string
	S3Region    string
	S3Bucket    string
	S3AccessKey string
	S3SecretKey string
	S3Prefix    string
	S3PathStyle bool
	S3Create    bool
	SMTPHost    string
	SMTPPort    int
	SMTPUser    string
	SMTPPass    string
	SMTPFrom    string
	SMTPTLS     string
	SMTPCAFile  string
}

// IndexerConfig tunes batching of the Kafka consumer.
type IndexerConfig struct {
	BatchSize  int
	BatchBytes int
	Linger     time.Duration
}

// RetentionConfig is the retention section, the same for every store: how
// often the retention pass runs (the embedded store's purge, the
// lifecycle worker of a cluster without ILM).
type RetentionConfig struct {
	Interval time.Duration
	// HoldGrace is how long a legal hold's release waits before it takes
	// effect, during which its holder can undo it.
	HoldGrace time.Duration
}

// ESConfig is the Elasticsearch section.
type ESConfig struct {
	URL         string
	Username    string
	Password    string
	APIKey      string
	IndexPrefix string
	Replicas    int
	// TenantLayout is where a tenant first seen writes: its plan's shared
	// stream or a dedicated one (elasticsearch.Layout).
	TenantLayout string
	// PromoteAbove moves a shared tenant with more events than this in a
	// week to a dedicated stream (0: only by hand).
	PromoteAbove int
	// ILM is the part of a cluster's ILM (where it has it): backstop
	// (the lifecycle pass rolls over and deletes, recording each deletion
	// in the log; ILM deletes only a week after the pass would have),
	// retention (ILM rolls over and deletes, unrecorded) or off.
	ILM string
}

// KafkaConfig is the Kafka section.
type KafkaConfig struct {
	Brokers    string
	Topic      string
	DLQTopic   string
	Group      string
	Partitions int
	Indexer    IndexerConfig
	// Consumer group timings and the progress check (indexer.Config).
	SessionTimeout    time.Duration
	HeartbeatInterval time.Duration
	RebalanceTimeout  time.Duration
	StallAfter        time.Duration
}

// option is one flag with its environment variable.
type option struct {
	flag, env, usage string
	secret           bool
}

// binder registers flags whose defaults come from the environment, and
// remembers the variable of each for --help and the start-up log.
type binder struct {
	fs      *flag.FlagSet
	getenv  func(string) string
	options []option
	errs    []string
	// What --help prints, and where (describe).
	helpOut   io.Writer
	helpUsage string
	primary   []string
}

func newBinder(name string, getenv func(string) string, out io.Writer) *binder {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	return &binder{fs: fs, getenv: getenv}
}

func (b *binder) add(name, env, usage string, secret bool) (string, bool) {
	b.options = append(b.options, option{flag: name, env: env, usage: usage, secret: secret})
	v := b.getenv(env)
	return v, v != ""
}

func (b *binder) str(p *string, name, env, def, usage string) {
	if v, ok := b.add(name, env, usage, false); ok {
		def = v
	}
	b.fs.StringVar(p, name, def, usage+" (env "+env+")")
}

func (b *binder) secret(p *string, name, env, usage string) {
	v, _ := b.add(name, env, usage, true)
	// Registered with an empty default so that --help never prints it.
	b.fs.StringVar(p, name, "", usage+" (env "+env+"; secret, masked in logs)")
	*p = v
}

func (b *binder) int(p *int, name, env string, def int, usage string) {
	if v, ok := b.add(name, env, usage, false); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.errs = append(b.errs, fmt.Sprintf("%s=%q is not an integer", env, v))
		} else {
			def = n
		}
	}
	b.fs.IntVar(p, name, def, usage+" (env "+env+")")
}

func (b *binder) duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	if v, ok := b.add(name, env, usage, false); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.errs = append(b.errs, fmt.Sprintf("%s=%q is not a duration like 30s", env, v))
		} else {
			def = d
		}
	}
	b.fs.DurationVar(p, name, def, usage+" (env "+env+")")
}

func (b *binder) boolean(p *bool, name, env string, def bool, usage string) {
	if v, ok := b.add(name, env, usage, false); ok {
		x, err := strconv.ParseBool(v)
		if err != nil {
			b.errs = append(b.errs, fmt.Sprintf("%s=%q is not true or false", env, v))
		} else {
			def = x
		}
	}
	b.fs.BoolVar(p, name, def, usage+" (env "+env+")")
}

// parse parses args and reports every environment and flag problem.
func (b *binder) parse(args []string) error {
	if topic, ok := helpTopic(args); ok && b.helpOut != nil {
		b.printHelp(b.helpOut, topic)
		return flag.ErrHelp
	}
	if err := b.fs.Parse(args); err != nil {
		return err
	}
	if len(b.errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(b.errs, "; "))
	}
	if b.fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", b.fs.Args())
	}
	if errs := b.checkRanges(); len(errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// resolved returns every option with its value, secrets masked, for the
// start-up log.
func (b *binder) resolved() []any { return b.masked(func(option) bool { return true }) }

// changed is resolved restricted to what a variable or a flag set: the
// short start-up line (issue 42: the whole configuration was a line of
// 2,000 characters on the demo's first screen; it is logged at debug).
func (b *binder) changed(except ...string) []any {
	set := map[string]bool{}
	b.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return b.masked(func(o option) bool { return (set[o.flag] || b.getenv(o.env) != "") && !slices.Contains(except, o.flag) })
}

// masked lists the options keep selects, secrets and URL passwords
// masked, by flag name.
func (b *binder) masked(keep func(option) bool) []any {
	sort.Slice(b.options, func(i, j int) bool { return b.options[i].flag < b.options[j].flag })
	out := make([]any, 0, len(b.options))
	for _, o := range b.options {
		if !keep(o) {
			continue
		}
		v := b.fs.Lookup(o.flag).Value.String()
		switch {
		case o.secret && v != "":
			v = "****"
		case strings.Contains(o.flag, "url"):
			v = maskURL(v)
		}
		out = append(out, slog.String(o.flag, v))
	}
	return out
}

// maskURL hides the password of a URL with user info.
func maskURL(s string) string {
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		if i := strings.Index(s, "://"); i >= 0 && i < at {
			return s[:i+3] + "****" + s[at:]
		}
	}
	return s
}

// The sections each command binds.

func (b *binder) common(c *Config, defaultAddr string) {
	b.str(&c.HTTPAddr, "http-addr", "AUDITLOG_HTTP_ADDR", defaultAddr, "address to listen on for HTTP (API, /healthz, /readyz, /metrics)")
	b.str(&c.TLSCert, "http-tls-cert", "AUDITLOG_HTTP_TLS_CERT", "", "PEM file of the server's certificate chain: serve HTTPS (with AUDITLOG_HTTP_TLS_KEY); read again when it changes")
	b.str(&c.TLSKey, "http-tls-key", "AUDITLOG_HTTP_TLS_KEY", "", "PEM file of the certificate's private key")
	b.str(&c.LogFormat, "log-format", "AUDITLOG_LOG_FORMAT", "json", "log format: json or text")
	b.str(&c.LogLevel, "log-level", "AUDITLOG_LOG_LEVEL", "info", "log level: debug, info, warn or error")
	b.duration(&c.ShutdownTimeout, "shutdown-timeout", "AUDITLOG_SHUTDOWN_TIMEOUT", 20*time.Second, "how long a graceful shutdown may take on SIGTERM")
	b.str(&c.CPUProfile, "cpu-profile", "AUDITLOG_CPU_PROFILE", "", "file a CPU profile of the whole process is written to, from start to shutdown, for `go tool pprof` (diagnosis: where the CPU goes)")
}

// store binds the store section every command that opens the event store
// shares (serve, export-periodic, tenant): which backend, the embedded
// store's directory, and the Elasticsearch section.
func (b *binder) store(c *Config) {
	b.str(&c.Store, "store", "AUDITLOG_STORE", "sqlite", "event store: "+strings.Join(backendNames(), " or ")+" (sqlite is the embedded default)")
	b.str(&c.DataDir, "data-dir", "AUDITLOG_DATA_DIR", "./data", "directory of the embedded database and of the files serve writes (exports, periodic exports)")
	b.elasticsearch(c)
	b.keys(c)
}

func (b *binder) elasticsearch(c *Config) {
	b.str(&c.ES.URL, "es-url", "AUDITLOG_ES_URL", "", "Elasticsearch URL(s), comma-separated")
	b.str(&c.ES.Username, "es-username", "AUDITLOG_ES_USERNAME", "", "Elasticsearch user for basic auth")
	b.secret(&c.ES.Password, "es-password", "AUDITLOG_ES_PASSWORD", "Elasticsearch password for basic auth")
	b.secret(&c.ES.APIKey, "es-api-key", "AUDITLOG_ES_API_KEY", "Elasticsearch API key (overrides user/password)")
	b.str(&c.ES.IndexPrefix, "es-index-prefix", "AUDITLOG_ES_INDEX_PREFIX", "auditlog", "prefix of data streams, templates and policies")
	b.int(&c.ES.Replicas, "es-replicas", "AUDITLOG_ES_REPLICAS", 0, "replicas per backing index (0 for a single node)")
	b.str(&c.DefaultPlan, "default-plan", "AUDITLOG_DEFAULT_PLAN", "enterprise", "plan of a tenant first seen: starter, pro or enterprise (the longest retention by default)")
	b.str(&c.ES.TenantLayout, "es-tenant-layout", "AUDITLOG_ES_TENANT_LAYOUT", "shared",
		"where a tenant first seen writes: shared (its plan's shared data stream, no shard of its own; promoted to its own stream when it grows) or dedicated (a data stream of its own from the first event)")
	b.str(&c.ES.ILM, "es-ilm", "AUDITLOG_ES_ILM", "backstop",
		"the cluster's ILM, where it has it: backstop (the lifecycle pass rolls over and deletes at each plan's retention and records each deletion in the tenant's verifiable log; ILM deletes only a week later, should the pass not have run), retention (ILM rolls over and deletes, unrecorded in the log) or off")
	b.int(&c.ES.PromoteAbove, "es-promote-above", "AUDITLOG_ES_PROMOTE_ABOVE", 1000000,
		"a shared tenant with more events than this in the last 7 days moves to a dedicated stream at the next lifecycle pass (0: only by the command auditlog tenant promote)")
}

func (b *binder) kafka(c *Config) {
	b.str(&c.Kafka.Brokers, "kafka-brokers", "AUDITLOG_KAFKA_BROKERS", "", "Kafka brokers, comma-separated")
	b.str(&c.Kafka.Topic, "kafka-topic", "AUDITLOG_KAFKA_TOPIC", "audit-events", "topic to consume")
	b.str(&c.Kafka.DLQTopic, "kafka-dlq-topic", "AUDITLOG_KAFKA_DLQ_TOPIC", "", "dead-letter topic (default <topic>.dlq)")
	b.str(&c.Kafka.Group, "kafka-group", "AUDITLOG_KAFKA_GROUP", "auditlog-indexer", "consumer group id")
	b.int(&c.Kafka.Partitions, "kafka-partitions", "AUDITLOG_KAFKA_PARTITIONS", 6, "partitions of the topics created at start when missing")
	b.int(&c.Kafka.Indexer.BatchSize, "batch-size", "AUDITLOG_BATCH_SIZE", 1000, "events per bulk write at most")
	b.int(&c.Kafka.Indexer.BatchBytes, "batch-bytes", "AUDITLOG_BATCH_BYTES", 8<<20, "payload bytes per bulk write at most")
	b.duration(&c.Kafka.Indexer.Linger, "batch-linger", "AUDITLOG_BATCH_LINGER", 200*time.Millisecond, "how long a batch waits for more events")
	b.duration(&c.Kafka.SessionTimeout, "kafka-session-timeout", "AUDITLOG_KAFKA_SESSION_TIMEOUT", 6*time.Second,
		"how long the broker waits for a silent group member before reassigning its partitions: a restart after a crash waits about this long (6s to 5m)")
	b.duration(&c.Kafka.HeartbeatInterval, "kafka-heartbeat-interval", "AUDITLOG_KAFKA_HEARTBEAT_INTERVAL", time.Second,
		"heartbeat of the group member (at most a third of the session timeout)")
	b.duration(&c.Kafka.RebalanceTimeout, "kafka-rebalance-timeout", "AUDITLOG_KAFKA_REBALANCE_TIMEOUT", 10*time.Second,
		"how long a rebalance waits for the members to rejoin (1s to 5m)")
	b.duration(&c.Kafka.StallAfter, "kafka-stall-after", "AUDITLOG_KAFKA_STALL_AFTER", 2*time.Minute,
		"with messages waiting, how long without a committed offset before /readyz reports the consumer as not making progress")
}

func (b *binder) sensitive(c *Config) {
	s := &c.Sensitive
	b.str(&s.Types, "sensitive-types", "AUDITLOG_SENSITIVE_TYPES", strings.Join(mask.DefaultSensitiveTypes, ","),
		"resource types whose update events must carry before and after, comma-separated (- for none)")
	b.str(&s.SecretFields, "secret-fields", "AUDITLOG_SECRET_FIELDS", strings.Join(mask.DefaultSecretFields, ","),
		"field names (any depth, any case) whose values are masked before storage, comma-separated")
	b.secret(&s.MaskKey, "mask-key", "AUDITLOG_MASK_KEY",
		"key (at least 32 bytes) of the hash that masks secret values (default: <data-dir>/mask-key on the embedded store, generated once; with Elasticsearch a key derived from the acceptance key; never a key kept in the store)")
}

func (b *binder) lifecycle(c *Config) {
	b.duration(&c.Retention.Interval, "lifecycle-interval", "AUDITLOG_LIFECYCLE_INTERVAL", time.Hour,
		"interval of the retention pass: the lifecycle worker of index (only where the cluster has no ILM), the purge of the embedded store")
	b.duration(&c.Retention.HoldGrace, "hold-release-grace", "AUDITLOG_HOLD_RELEASE_GRACE", hold.DefaultGrace,
		"how long a legal hold's release waits before retention may delete what it kept; its holder can undo it meanwhile")
}

func (b *binder) auth(c *Config) {
	b.signing(c)
	b.str(&c.JWTPublicKey, "jwt-public-key", "AUDITLOG_JWT_PUBLIC_KEY", "", "PEM file of the RS256 public key (production; replaces the secret)")
	b.str(&c.OIDCIssuer, "jwt-oidc-issuer", "AUDITLOG_JWT_OIDC_ISSUER", "",
		"OpenID Connect issuer URL of the identity provider: its discovery document names the JWKS, and tokens must carry it as iss (production; replaces the secret)")
	b.str(&c.JWKSURL, "jwt-jwks-url", "AUDITLOG_JWT_JWKS_URL", "", "URL of the identity provider's JWKS document, when it has no OpenID Connect discovery (production; replaces the secret)")
	b.duration(&c.JWKSRefresh, "jwt-jwks-refresh", "AUDITLOG_JWT_JWKS_REFRESH", time.Hour,
		"how often the JWKS is read again (a token whose kid is unknown reads it at once, at most once a minute)")
	for _, cl := range []struct {
		p         *string
		name, def string
		what      string
	}{
		{&c.Claims.Tenant, "tenant", api.ClaimTenant, "the tenant's UUID"},
		{&c.Claims.Role, "role", api.ClaimRole, "the role (a string, or a list of which the first known role counts)"},
		{&c.Claims.Email, "email", api.ClaimEmail, "the user's e-mail"},
		{&c.Claims.Reason, "reason", api.ClaimReason, "an operator's declared reason"},
	} {
		b.str(cl.p, "jwt-claim-"+cl.name, "AUDITLOG_JWT_CLAIM_"+strings.ToUpper(cl.name), cl.def,
			"name of the token claim holding "+cl.what+": as it is, else a path of members separated by dots (ext."+cl.name+")")
	}
}

// signing binds what signs and names tokens: the secret, issuer and
// audience (serve verifies with them, token mints with them).
func (b *binder) signing(c *Config) {
	b.secret(&c.JWTSecret, "jwt-secret", "AUDITLOG_JWT_SECRET", "HS256 secret for bearer tokens (embedded store default: the development secret of the data directory)")
	b.str(&c.JWTIssuer, "jwt-issuer", "AUDITLOG_JWT_ISSUER", api.Issuer, "iss claim every bearer token must carry (- accepts any); the command auditlog token mints it")
	b.str(&c.JWTAudience, "jwt-audience", "AUDITLOG_JWT_AUDIENCE", api.Audience, "aud value every bearer token must carry (- accepts any); the command auditlog token mints it")
}

// claimCheck is the value of an issuer or audience setting as the
// verifier takes it: "-" turns the check off.
func claimCheck(v string) string {
	if v == "-" {
		return ""
	}
	return v
}

func (b *binder) api(c *Config) {
	b.secret(&c.CursorSecret, "cursor-secret", "AUDITLOG_CURSOR_SECRET", "key that signs page cursors (default: derived from the JWT secret; required with RS256)")
	b.int(&c.RateLimit, "rate-limit", "AUDITLOG_RATE_LIMIT", 50, "API requests per second per tenant (0: no limit)")
	b.int(&c.RateBurst, "rate-burst", "AUDITLOG_RATE_BURST", 100, "API request burst per tenant")
	b.int(&c.MaxInFlight, "max-in-flight", "AUDITLOG_MAX_IN_FLIGHT", 64, "API requests in flight at once; past it a request is refused at once with 503 and Retry-After (0: no bound)")
	b.int(&c.MaxInFlightPerTenant, "max-in-flight-per-tenant", "AUDITLOG_MAX_IN_FLIGHT_PER_TENANT", 16, "API requests in flight at once of one tenant; past it 429 with Retry-After (0: no bound)")
	b.str(&c.TrustedProxies, "trusted-proxies", "AUDITLOG_TRUSTED_PROXIES", "", "proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For / X-Real-IP name the client; empty: none, the peer address is the client")
}

func (b *binder) export(c *Config) {
	e := &c.Export
	b.str(&e.PublicURL, "public-url", "AUDITLOG_PUBLIC_URL", "", "base URL of this service as users reach it, for the links in e-mails (default http://<http-addr>)")
	b.int(&e.Workers, "export-workers", "AUDITLOG_EXPORT_WORKERS", 2, "export jobs this process runs at once")
	b.int(&e.MaxActive, "export-max-active", "AUDITLOG_EXPORT_MAX_ACTIVE", 3, "queued and running export jobs a tenant may have at once")
	b.duration(&e.Expiry, "export-expiry", "AUDITLOG_EXPORT_EXPIRY", 7*24*time.Hour, "how long an export file is kept")
	b.duration(&e.Lease, "export-lease", "AUDITLOG_EXPORT_LEASE", 30*time.Second, "how long a running job stays claimed without a heartbeat (a job whose process died restarts after it)")
	b.duration(&e.Poll, "export-poll", "AUDITLOG_EXPORT_POLL", time.Second, "how often the export queue is looked at")
	b.int(&e.Attempts, "export-attempts", "AUDITLOG_EXPORT_ATTEMPTS", 3, "runs of a job that fails because the store is unreachable, before it fails")
	b.duration(&e.RetryDelay, "export-retry-delay", "AUDITLOG_EXPORT_RETRY_DELAY", 10*time.Second, "wait before the second run of a failed job, doubled each time")
	b.int(&e.ScanPage, "export-scan-page", "AUDITLOG_EXPORT_SCAN_PAGE", 2000, "events per point-in-time page of an Elasticsearch export scan")
	b.str(&e.FileStore, "export-store", "AUDITLOG_EXPORT_STORE", "local", "where export files go: local (under the data dir) or s3")
	b.str(&e.Dir, "export-dir", "AUDITLOG_EXPORT_DIR", "", "directory of local export files and of files being written (default <data-dir>/exports)")
	b.s3(e)
	b.str(&e.S3Bucket, "s3-bucket", "AUDITLOG_S3_BUCKET", "", "S3 bucket of export files")
	b.str(&e.S3Prefix, "s3-prefix", "AUDITLOG_S3_PREFIX", "", "prefix of the object keys")
	b.boolean(&e.S3Create, "s3-create-bucket", "AUDITLOG_S3_CREATE_BUCKET", false, "create the bucket at start when it is missing")
	b.smtp(e)
}

// smtp binds the SMTP server of the e-mails (exports, stream alerts).
func (b *binder) smtp(e *ExportConfig) {
	b.str(&e.SMTPHost, "smtp-host", "AUDITLOG_SMTP_HOST", "", "SMTP server of the e-mails: exports, stream alerts (unset: .eml files in <data-dir>/outbox)")
	b.int(&e.SMTPPort, "smtp-port", "AUDITLOG_SMTP_PORT", 587, "SMTP port")
	b.str(&e.SMTPUser, "smtp-username", "AUDITLOG_SMTP_USERNAME", "", "SMTP user (PLAIN authentication)")
	b.secret(&e.SMTPPass, "smtp-password", "AUDITLOG_SMTP_PASSWORD", "SMTP password")
	b.str(&e.SMTPFrom, "smtp-from", "AUDITLOG_SMTP_FROM", "Audit log <auditlog@localhost>", "sender of the e-mails")
	b.str(&e.SMTPTLS, "smtp-starttls", "AUDITLOG_SMTP_STARTTLS", "opportunistic", "STARTTLS: required, opportunistic or off")
	b.str(&e.SMTPCAFile, "smtp-ca-file", "AUDITLOG_SMTP_CA_FILE", "", "PEM file that verifies the SMTP server's certificate (default: the system roots)")
}

// s3 binds the connection to the S3-compatible server, shared by the
// export files, the periodic export and verify --bucket.
func (b *binder) s3(e *ExportConfig) {
	b.str(&e.S3Endpoint, "s3-endpoint", "AUDITLOG_S3_ENDPOINT", "", "S3-compatible endpoint URL, e.g. https://s3.eu-west-1.amazonaws.com")
	b.str(&e.S3Region, "s3-region", "AUDITLOG_S3_REGION", "us-east-1", "S3 region")
	b.str(&e.S3AccessKey, "s3-access-key", "AUDITLOG_S3_ACCESS_KEY", "", "S3 access key id")
	b.secret(&e.S3SecretKey, "s3-secret-key", "AUDITLOG_S3_SECRET_KEY", "S3 secret access key")
	b.boolean(&e.S3PathStyle, "s3-path-style", "AUDITLOG_S3_PATH_STYLE", false, "path-style bucket addressing (MinIO, versitygw)")
}

// countSet counts the values that are not empty.
func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}

// validate checks the cross-field rules of the configuration.
func (c *Config) validate(needStore bool) error {
	var errs []string
	if needStore {
		if c.JWTSecret == "" && c.JWTPublicKey == "" && c.JWKSURL == "" && c.OIDCIssuer == "" {
			errs = append(errs, "AUDITLOG_JWT_SECRET (HS256), AUDITLOG_JWT_PUBLIC_KEY (RS256), AUDITLOG_JWT_OIDC_ISSUER or AUDITLOG_JWT_JWKS_URL must be set: the API authenticates every caller")
		}
		if n := countSet(c.JWTPublicKey, c.JWKSURL, c.OIDCIssuer); n > 1 {
			errs = append(errs, "set one of AUDITLOG_JWT_PUBLIC_KEY, AUDITLOG_JWT_OIDC_ISSUER and AUDITLOG_JWT_JWKS_URL: each names the keys tokens are verified with")
		}
		switch c.Store {
		case "sqlite":
			if c.DataDir == "" {
				errs = append(errs, "AUDITLOG_DATA_DIR must be set for the sqlite store")
			}
		case "elasticsearch":
			if c.ES.URL == "" {
				errs = append(errs, "AUDITLOG_ES_URL must be set when AUDITLOG_STORE=elasticsearch")
			}
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, "set both AUDITLOG_HTTP_TLS_CERT and AUDITLOG_HTTP_TLS_KEY, or neither: HTTPS needs the certificate and its key")
	} else if c.TLSCert != "" {
		if _, err := newCertReloader(c.TLSCert, c.TLSKey, slog.New(slog.DiscardHandler)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if c.SeedEnd != "" && c.SeedEnd != "now" { // serve only: index has no seed
		if _, err := time.Parse(time.RFC3339, c.SeedEnd); err != nil {
			errs = append(errs, fmt.Sprintf("AUDITLOG_SEED_END=%q: want an RFC 3339 instant or now", c.SeedEnd))
		}
	}
	if needStore {
		switch c.Export.FileStore {
		case "local":
		case "s3":
			if c.Export.S3Endpoint == "" || c.Export.S3Bucket == "" {
				errs = append(errs, "AUDITLOG_S3_ENDPOINT and AUDITLOG_S3_BUCKET must be set when AUDITLOG_EXPORT_STORE=s3")
			}
		}
	}
	// The one cross-field rule of the group timings (each one's range is
	// in durationRanges).
	if k := c.Kafka; k.HeartbeatInterval*3 > k.SessionTimeout {
		errs = append(errs, fmt.Sprintf("AUDITLOG_KAFKA_HEARTBEAT_INTERVAL=%s: want at most a third of AUDITLOG_KAFKA_SESSION_TIMEOUT", k.HeartbeatInterval))
	}
	errs = append(errs, c.Sensitive.check()...)
	errs = append(errs, c.Streams.check(c.Store)...)
	errs = append(errs, c.Keys.check(c, needStore)...)
	if needStore {
		errs = append(errs, c.Restore.check()...)
		errs = append(errs, c.Periodic.check(c)...)
		errs = append(errs, c.Log.check()...)
		if _, err := frameAncestors(c.PanelFrameAncestors); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for _, p := range splitList(c.TrustedProxies) {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				errs = append(errs, fmt.Sprintf("AUDITLOG_TRUSTED_PROXIES: %q is neither an IP address nor a CIDR", p))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("AUDITLOG_LOG_LEVEL=%q: want debug, info, warn or error", s)
	}
	return l, nil
}

func newLogger(c *Config, w io.Writer) *slog.Logger {
	lvl, _ := parseLevel(c.LogLevel)
	opts := &slog.HandlerOptions{Level: lvl}
	if c.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
