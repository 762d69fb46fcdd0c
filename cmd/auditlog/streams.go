package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/datadog"
	"github.com/auditlog/auditlog/streaming/s3stream"
	"github.com/auditlog/auditlog/streaming/sentinel"
	"github.com/auditlog/auditlog/streaming/splunk"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// StreamsConfig is the streams section (issue 43): which plans may
// create streams, where they may deliver, and how the delivery runs.
type StreamsConfig struct {
	// Run: on runs the delivery in this process, off does not, auto
	// runs it in serve on the embedded store (with Elasticsearch, the
	// `auditlog stream` process delivers).
	Run          string
	Plans        string
	AllowPrivate bool
	CAFile       string
	Every        time.Duration
	S3Every      time.Duration
	Lease        time.Duration
	Timeout      time.Duration
	Workers      int
	Batch        int
	// AzureAuthority and AzureScope are Entra ID's login host and the
	// Logs Ingestion API's scope, for Sentinel streams (another cloud's,
	// or a test's).
	AzureAuthority string
	AzureScope     string
	AlertAfter     time.Duration
	// DatadogDomains and SentinelDomains are the intake domains those
	// destinations must be under (comma-separated).
	DatadogDomains, SentinelDomains string
	// MaskKey is the file of the key the streams' hashes of masked
	// fields are keyed from (streamMaskKey).
	MaskKey string
	bound   bool
}

// streams binds the section; serve takes the API's options too (which
// plans may create streams, whether serve delivers them).
func (b *binder) streams(c *Config, serve bool) {
	s := &c.Streams
	s.bound = true
	if serve {
		b.str(&s.Run, "stream-run", "AUDITLOG_STREAM_RUN", "auto",
			"deliver the tenants' streams in serve: auto (on the embedded store; with Elasticsearch the auditlog stream process delivers), on or off")
		b.str(&s.Plans, "stream-plans", "AUDITLOG_STREAM_PLANS", string(audit.PlanEnterprise), "plans whose tenants may create streams, comma-separated (- for none)")
		b.str(&s.DatadogDomains, "stream-datadog-domains", "AUDITLOG_STREAM_DATADOG_DOMAINS", strings.Join(datadog.IntakeDomains, ","),
			"domains a Datadog stream's intake host must be under, comma-separated (a sovereign or private site's)")
		b.str(&s.SentinelDomains, "stream-sentinel-domains", "AUDITLOG_STREAM_SENTINEL_DOMAINS", strings.Join(sentinel.IntakeDomains, ","),
			"domains a Sentinel stream's Logs Ingestion endpoint must be under, comma-separated (another cloud's)")
	}
	b.boolean(&s.AllowPrivate, "stream-allow-private", "AUDITLOG_STREAM_ALLOW_PRIVATE", false,
		"let streams deliver to loopback, private and link-local addresses (development and tests; production refuses them, so that a tenant cannot reach the service's own network)")
	b.str(&s.CAFile, "stream-ca-file", "AUDITLOG_STREAM_CA_FILE", "", "PEM file of certificate authorities trusted for stream destinations, besides the system's (a SIEM behind a private CA)")
	b.duration(&s.Every, "stream-every", "AUDITLOG_STREAM_EVERY", time.Second, "how often the streams are looked at for new sealed events")
	b.duration(&s.S3Every, "stream-s3-every", "AUDITLOG_STREAM_S3_EVERY", streaming.DefaultS3Every,
		"how long an S3 stream gathers events for one object (or 1,000 leaves of the log, whichever comes first)")
	b.duration(&s.Lease, "stream-lease", "AUDITLOG_STREAM_LEASE", 30*time.Second, "how long a replica holds a stream without renewing it (a dead replica's streams move after it)")
	b.duration(&s.Timeout, "stream-timeout", "AUDITLOG_STREAM_TIMEOUT", 30*time.Second, "time limit of one delivery request")
	b.int(&s.Workers, "stream-workers", "AUDITLOG_STREAM_WORKERS", streaming.DefaultWorkers, "streams one replica delivers at once")
	b.int(&s.Batch, "stream-batch", "AUDITLOG_STREAM_BATCH", 500, "leaves of the log one batch covers at most")
	b.duration(&s.AlertAfter, "stream-alert-after", "AUDITLOG_STREAM_ALERT_AFTER", stream.AlertAfter,
		"how long a stream fails before its notify addresses are e-mailed (and e-mailed again when it recovers)")
	b.str(&s.MaskKey, "stream-mask-key", "AUDITLOG_STREAM_MASK_KEY", "",
		"file of the key (base64 of at least 32 random bytes: openssl rand -base64 32) each stream's hashes of masked fields are keyed from with its id; never sent, never in the store. Required with Elasticsearch where streams are delivered, one file for every replica (the embedded store generates <data-dir>/stream-mask-key)")
	b.str(&s.AzureAuthority, "stream-azure-authority", "AUDITLOG_STREAM_AZURE_AUTHORITY", sentinel.DefaultAuthority,
		"Entra ID's login host for Sentinel streams (https://login.microsoftonline.us for Azure Government)")
	b.str(&s.AzureScope, "stream-azure-scope", "AUDITLOG_STREAM_AZURE_SCOPE", sentinel.DefaultScope,
		"the Logs Ingestion API's scope for Sentinel streams (https://monitor.azure.us//.default for Azure Government)")
}

// plans parses AUDITLOG_STREAM_PLANS.
func (s StreamsConfig) plans() ([]audit.Plan, error) {
	if s.Plans == "-" {
		return nil, nil
	}
	var out []audit.Plan
	for _, p := range splitList(s.Plans) {
		plan, err := audit.ParsePlan(p)
		if err != nil {
			return nil, fmt.Errorf("AUDITLOG_STREAM_PLANS=%q: %q is no plan: want starter, pro or enterprise, comma-separated, or -", s.Plans, p)
		}
		out = append(out, plan)
	}
	return out, nil
}

func (s StreamsConfig) check(store string) []string {
	if !s.bound {
		return nil
	}
	var errs []string
	for _, v := range [][2]string{{"AUDITLOG_STREAM_DATADOG_DOMAINS", s.DatadogDomains}, {"AUDITLOG_STREAM_SENTINEL_DOMAINS", s.SentinelDomains}} {
		for _, d := range splitList(v[1]) {
			if u, err := url.Parse("https://" + d); err != nil || u.Hostname() != d || !strings.Contains(d, ".") {
				errs = append(errs, fmt.Sprintf("%s: %q is no domain (want names like datadoghq.com, comma-separated)", v[0], d))
			}
		}
	}
	if store == "elasticsearch" && s.MaskKey == "" && s.Run == "on" {
		errs = append(errs, "AUDITLOG_STREAM_MASK_KEY must be set when streams are delivered from Elasticsearch: the file of the key their hashes of masked fields are keyed from (openssl rand -base64 32), one for every replica")
	}
	if _, err := s.plans(); err != nil {
		errs = append(errs, err.Error())
	}
	if s.CAFile != "" {
		if _, err := s.pool(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if s.AlertAfter < time.Second || s.AlertAfter > 7*24*time.Hour {
		errs = append(errs, fmt.Sprintf("AUDITLOG_STREAM_ALERT_AFTER=%s: want 1s to 168h", s.AlertAfter))
	}
	for _, v := range [][2]string{{"AUDITLOG_STREAM_AZURE_AUTHORITY", s.AzureAuthority}, {"AUDITLOG_STREAM_AZURE_SCOPE", s.AzureScope}} {
		if u, err := url.Parse(v[1]); err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Sprintf("%s=%q: want an https:// URL", v[0], v[1]))
		}
	}
	return errs
}

// pool is the system's roots plus AUDITLOG_STREAM_CA_FILE's.
func (s StreamsConfig) pool() (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	pem, err := os.ReadFile(s.CAFile)
	if err != nil {
		return nil, fmt.Errorf("AUDITLOG_STREAM_CA_FILE=%q: %v", s.CAFile, err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("AUDITLOG_STREAM_CA_FILE=%q: no PEM certificate in it", s.CAFile)
	}
	return pool, nil
}

// streamer builds the delivery of streams over the stores: one client
// per destination kind, the HTTP ones on streaming.HTTPClient's rules
// (public addresses only, no proxy, no redirect); S3 where the
// deployment has an S3 server, its manifests signed with the deployment's
// key.
func (m *Main) streamer(streams stream.Store, logs vlog.Store, events audit.EventReader, records audit.EventWriter) (*streaming.Streamer, error) {
	s := m.Config.Streams
	hook := webhook.NewClient(s.AllowPrivate, s.Timeout)
	hec := splunk.NewClient(s.AllowPrivate, s.Timeout)
	dd := datadog.NewClient(s.AllowPrivate, s.Timeout)
	az := sentinel.NewClient(s.AllowPrivate, s.Timeout, s.AzureAuthority, s.AzureScope)
	if s.CAFile != "" {
		pool, err := s.pool()
		if err != nil {
			return nil, err
		}
		for _, c := range []*http.Client{hook.HTTP, hec.HTTP, dd.HTTP, az.HTTP} {
			c.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
	}
	dests := map[string]streaming.Destination{webhook.Kind: hook, splunk.Kind: hec, datadog.Kind: dd, sentinel.Kind: az}
	if m.Config.Export.S3Endpoint != "" {
		key, _, err := m.signingKeys()
		if err != nil {
			return nil, err
		}
		dests[s3stream.Kind] = &s3stream.Destination{Bucket: m.s3Buckets(), Key: key, Now: time.Now}
	}
	return &streaming.Streamer{Streams: streams, Log: logs, Events: events, Records: records, BatchSize: s.Batch, Now: time.Now,
		Dest: func(kind string) streaming.Destination { return dests[kind] }}, nil
}

// startStreams returns the API's streams over store, and starts the
// delivery when this process delivers (AUDITLOG_STREAM_RUN).
func (m *Main) startStreams(ctx context.Context, store eventStore, logs vlog.Store) (api.StreamDeps, error) {
	s := m.Config.Streams
	if logs == nil {
		m.Logger.Info("streams off: a stream delivers the verifiable log, which is off")
		return api.StreamDeps{}, nil
	}
	plans, _ := s.plans() // checked by validate
	plan, err := m.defaultPlan()
	if err != nil {
		return api.StreamDeps{}, err
	}
	st, err := m.streamer(store, logs, store, store)
	if err != nil {
		return api.StreamDeps{}, err
	}
	rules := stream.Rules{AllowPrivate: s.AllowPrivate, Intake: map[string][]string{
		datadog.Kind: splitList(strings.ToLower(s.DatadogDomains)), sentinel.Kind: splitList(strings.ToLower(s.SentinelDomains))}}
	if m.Config.Export.S3Endpoint == "" {
		rules.Off = map[string]string{s3stream.Kind: "this deployment has no S3 server for streams (AUDITLOG_S3_ENDPOINT)"}
	}
	deps := api.StreamDeps{Store: store, Tenants: store, DefaultPlan: plan, Plans: plans, Rules: rules,
		Secret: newStreamSecret, Test: st.Test}
	if s.Run == "on" || s.Run == "auto" && m.Config.Store == "sqlite" {
		if err := m.runStreams(ctx, st); err != nil {
			return deps, err
		}
	}
	return deps, nil
}

// runStreams runs the delivery loop in the background.
func (m *Main) runStreams(ctx context.Context, st *streaming.Streamer) error {
	s := m.Config.Streams
	var err error
	if st.MaskKey, err = m.streamMaskKey(); err != nil {
		return err
	}
	mailer, err := m.mailer()
	if err != nil {
		return err
	}
	r := &streaming.Runner{Streamer: st, Owner: replicaName(), Lease: s.Lease,
		Workers: s.Workers, S3Every: s.S3Every, Log: m.Logger.With("component", "streams"), Metrics: streaming.NewMetrics(m.Registry),
		Alert: mailer.NotifyStream, AlertAfter: s.AlertAfter}
	m.background(ctx, "streams", func(bg context.Context) { r.Run(bg, s.Every) })
	m.Logger.Info("streams delivered by this process", "owner", r.Owner, "every", s.Every, "lease", s.Lease, "allow_private", s.AllowPrivate)
	return nil
}

// s3Buckets opens buckets by name on the deployment's S3 server, each
// once (the periodic export's, the S3 streams').
func (m *Main) s3Buckets() func(ctx context.Context, name string) (blob.Store, error) {
	ec := m.Config.Export
	var mu sync.Mutex
	open := map[string]blob.Store{}
	return func(ctx context.Context, name string) (blob.Store, error) {
		mu.Lock()
		defer mu.Unlock()
		if b, ok := open[name]; ok {
			return b, nil
		}
		f, err := s3.Open(ctx, s3.Config{Endpoint: ec.S3Endpoint, Region: ec.S3Region, Bucket: name, AccessKey: ec.S3AccessKey,
			SecretKey: ec.S3SecretKey, PathStyle: ec.S3PathStyle, CreateBucket: ec.S3Create})
		if err != nil {
			return nil, err
		}
		open[name] = f
		return f, nil
	}
}

// newStreamSecret makes a webhook's signing key: 32 random bytes,
// base64url.
func newStreamSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// runStream is `auditlog stream`: the delivery of the tenants' streams
// from Elasticsearch, with /healthz, /readyz and /metrics.
func (m *Main) runStream(ctx context.Context) error {
	plan, err := m.defaultPlan()
	if err != nil {
		return err
	}
	client, err := m.esClient()
	if err != nil {
		return err
	}
	ready := []api.ReadinessCheck{{Name: "elasticsearch", Check: client.Ping}}
	srv := api.NewServer(api.Config{}, api.Deps{Logger: m.Logger, Registry: m.Registry, Ready: ready})
	if err := m.serveHTTP(srv.Handler()); err != nil {
		return err
	}
	store, err := m.elasticsearchStore(ctx, client, plan, false)
	if err != nil {
		return err
	}
	retained := &audit.Retained{Reader: store, Scanner: store, Directory: store, Default: plan}
	st, err := m.streamer(store, store, retained, store)
	if err != nil {
		return err
	}
	return m.runStreams(ctx, st)
}
