package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/signing"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

// PeriodicConfig is the periodic export section (issue 16): where each
// Enterprise tenant's windows go, when, and the key that signs them.
type PeriodicConfig struct {
	Run         bool
	Store       string // local or s3
	Dir         string
	Bucket      string
	Prefix      string
	Settle      time.Duration
	LateHorizon time.Duration
	Every       time.Duration
	Lease       time.Duration
	SigningKey  string // PEM file of the Ed25519 private key
	PublicKeys  string // directory of earlier public keys (*.pem)
}

func (b *binder) periodic(c *Config) {
	p := &c.Periodic
	b.boolean(&p.Run, "periodic-export", "AUDITLOG_PERIODIC_EXPORT", true,
		"run the periodic export in serve (several replicas may: a lease in the store gives each tenant to one)")
	b.str(&p.Store, "periodic-store", "AUDITLOG_PERIODIC_STORE", "local", "where periodic exports go: local (a directory) or s3 (the AUDITLOG_S3_* server)")
	b.str(&p.Dir, "periodic-dir", "AUDITLOG_PERIODIC_DIR", "", "directory of periodic exports with the local store (default <data-dir>/periodic-exports)")
	b.str(&p.Bucket, "periodic-bucket", "AUDITLOG_PERIODIC_BUCKET", "", "S3 bucket of periodic exports (default AUDITLOG_S3_BUCKET); a tenant may have its own")
	b.str(&p.Prefix, "periodic-prefix", "AUDITLOG_PERIODIC_PREFIX", "auditlog", "first part of the object keys: <prefix>/<tenant>/<yyyy>/<mm>/<dd>/…")
	b.duration(&p.Settle, "periodic-settle", "AUDITLOG_PERIODIC_SETTLE", 15*time.Minute, "how long after its end a window is exported, so that late events are in it")
	b.duration(&p.LateHorizon, "periodic-late-horizon", "AUDITLOG_PERIODIC_LATE_HORIZON", 7*24*time.Hour,
		"how far back events arriving after their window was exported are looked for (they go into late files)")
	b.duration(&p.Every, "periodic-every", "AUDITLOG_PERIODIC_EVERY", time.Minute, "how often the periodic export looks for due windows and late events")
	b.duration(&p.Lease, "periodic-lease", "AUDITLOG_PERIODIC_LEASE", 2*time.Minute, "how long a replica holds a tenant's export without renewing it")
	b.str(&p.SigningKey, "periodic-signing-key", "AUDITLOG_PERIODIC_SIGNING_KEY", "",
		"PEM file (PKCS #8, mode 0600) of the Ed25519 key that signs the log's checkpoints and the periodic digests; required with Elasticsearch (the embedded store generates <data-dir>/signing-key.pem)")
	b.str(&p.PublicKeys, "periodic-public-keys", "AUDITLOG_PERIODIC_PUBLIC_KEYS", "",
		"directory of the public keys (*.pem) of earlier signing keys, published with the current one after a rotation")
}

// check reports the section's problems, each naming its variable.
func (p PeriodicConfig) check(c *Config) []string {
	var errs []string
	if p.Store == "s3" && (c.Export.S3Endpoint == "" || (p.Bucket == "" && c.Export.S3Bucket == "")) {
		errs = append(errs, "AUDITLOG_S3_ENDPOINT and AUDITLOG_PERIODIC_BUCKET (or AUDITLOG_S3_BUCKET) must be set when AUDITLOG_PERIODIC_STORE=s3")
	}
	if c.Store == "elasticsearch" && p.SigningKey == "" {
		errs = append(errs, "AUDITLOG_PERIODIC_SIGNING_KEY must be set when AUDITLOG_STORE=elasticsearch: the key that signs the log's checkpoints and the periodic digests is a file kept apart from the store it signs (openssl genpkey -algorithm ed25519 -out signing-key.pem)")
	}
	if strings.Trim(p.Prefix, "/") != p.Prefix || p.Prefix == "" || strings.Contains(p.Prefix, "..") {
		errs = append(errs, fmt.Sprintf("AUDITLOG_PERIODIC_PREFIX=%q: want a key prefix without leading or trailing / and without ..", p.Prefix))
	}
	return errs
}

// periodicScheduler wires the scheduler: the bucket (a tenant's own when
// set), the keys, the metric of the oldest undelivered window.
func (m *Main) periodicScheduler(ctx context.Context, store eventStore) (*periodicexport.Scheduler, error) {
	p := m.Config.Periodic
	key, pub, err := m.signingKeys()
	if err != nil {
		return nil, err
	}
	bucket, err := m.periodicBuckets(p)
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(m.Config.DataDir, "periodic-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	age := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "auditlog_periodic_oldest_undelivered_seconds",
		Help: "Age of the oldest periodic-export window that is due and not delivered, per tenant (0: none)."}, []string{"tenant"})
	if err := m.Registry.Register(age); err != nil {
		return nil, err
	}
	m.Logger.Info("periodic export", "store", p.Store, "prefix", p.Prefix, "key_id", signing.KeyID(key.Public().(ed25519.PublicKey)), "public_keys", len(pub))
	sch := &periodicexport.Scheduler{Store: store, Tenants: store, Events: store, Bucket: bucket, Key: key, PublicKeys: pub,
		Settle: p.Settle, LateHorizon: p.LateHorizon, Owner: fmt.Sprintf("%s/%d", host, os.Getpid()), Lease: p.Lease, TempDir: tmp,
		Now: time.Now, Log: m.Logger,
		Observe: func(tenant string, d time.Duration) { age.WithLabelValues(tenant).Set(d.Seconds()) }}
	// With the verifiable log, the digests carry the tenant's checkpoint
	// and each delivery is recorded in the tenant's log.
	raw := store
	if r, wrapped := store.(retainedStore); wrapped {
		raw = r.eventStore
	}
	if ls, ok := raw.(vlog.Store); ok && m.Config.Log.queue() {
		sch.Logs, sch.Records = ls, raw
		if cs, ok := raw.(vlog.CosignStore); ok && strings.TrimSpace(m.Config.Log.Witnesses) != "" {
			sch.Cosigned = cs // the digests carry the witnesses' cosignatures
		}
	}
	return sch, nil
}

// exportKeys are the public keys of GET /api/export-keys, the current
// one first, then by id.
func exportKeys(sch *periodicexport.Scheduler) []api.ExportKey {
	cur := signing.KeyID(sch.Key.Public().(ed25519.PublicKey))
	keys := []api.ExportKey{{KeyID: cur, PublicKey: string(sch.PublicKeys[cur]), Current: true}}
	ids := make([]string, 0, len(sch.PublicKeys))
	for id := range sch.PublicKeys {
		if id != cur {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		keys = append(keys, api.ExportKey{KeyID: id, PublicKey: string(sch.PublicKeys[id])})
	}
	return keys
}

// periodicBuckets returns the bucket of a tenant's state: the local
// directory, or the S3 bucket (the tenant's own when set), opened once.
func (m *Main) periodicBuckets(p PeriodicConfig) (func(*periodic.State) (blob.Store, string, error), error) {
	if p.Store != "s3" {
		dir := p.Dir
		if dir == "" {
			dir = filepath.Join(m.Config.DataDir, "periodic-exports")
		}
		b := localfs.Dir{Root: dir}
		return func(st *periodic.State) (blob.Store, string, error) {
			_, prefix := periodicexport.Destination(st, "", p.Prefix)
			return b, prefix, nil
		}, nil
	}
	ec := m.Config.Export
	deployment := p.Bucket
	if deployment == "" {
		deployment = ec.S3Bucket
	}
	open := m.s3Buckets()
	return func(st *periodic.State) (blob.Store, string, error) {
		name, prefix := periodicexport.Destination(st, deployment, p.Prefix)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		b, err := open(ctx, name)
		return b, prefix, err
	}, nil
}

const exportPeriodicUsage = `Usage: auditlog export-periodic [--once] [flags]

Exports the settled windows and late files of every tenant whose periodic
export is on (Enterprise by default), from the store serve uses, to the
periodic export's destination: once with --once (for cron; it waits for a
tenant another replica is exporting, at most AUDITLOG_PERIODIC_LEASE), else
every AUDITLOG_PERIODIC_EVERY until SIGTERM. serve does the same unless
AUDITLOG_PERIODIC_EXPORT=false; a lease in the store lets them all run.
`

// runExportPeriodic is auditlog export-periodicexport.
func runExportPeriodic(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c Config
	var once bool
	b := newBinder("auditlog export-periodic", getenv, stderr)
	b.str(&c.LogFormat, "log-format", "AUDITLOG_LOG_FORMAT", "json", "log format: json or text")
	b.str(&c.LogLevel, "log-level", "AUDITLOG_LOG_LEVEL", "info", "log level: debug, info, warn or error")
	b.store(&c)
	b.s3(&c.Export)
	b.str(&c.Export.S3Bucket, "s3-bucket", "AUDITLOG_S3_BUCKET", "", "S3 bucket (the periodic export's unless AUDITLOG_PERIODIC_BUCKET is set)")
	b.boolean(&c.Export.S3Create, "s3-create-bucket", "AUDITLOG_S3_CREATE_BUCKET", false, "create the bucket when it is missing")
	b.periodic(&c)
	b.fs.BoolVar(&once, "once", false, "export what is due, then exit (exit 1 when a tenant's pass failed)")
	b.describe(stdout, exportPeriodicUsage, "Store", "Periodic export", "Logging")
	if err := b.parse(args); err != nil {
		return err
	}
	if errs := c.Periodic.check(&c); len(errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	logger := newLogger(&c, stdout)
	logger.Info("starting", append([]any{"command", "export-periodic", "version", version}, b.changed()...)...)
	logger.Debug("configuration", b.resolved()...)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	m := NewMain("export-periodic", c, logger)
	defer m.Close()
	opened, err := m.openStore(ctx)
	if err != nil {
		return err
	}
	sch, err := m.periodicScheduler(ctx, opened.store)
	if err != nil {
		return err
	}
	if once {
		sch.WaitHeld = true
		return sch.RunOnce(ctx)
	}
	sch.Run(ctx, c.Periodic.Every)
	return nil
}
