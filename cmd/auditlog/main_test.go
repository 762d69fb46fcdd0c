package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/keyfile"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// startMain starts the real wiring of cmd in-process with the given
// environment (port :0 and a temporary directory are the caller's), and
// closes it when the test ends.
func startMain(t *testing.T, cmd string, vars map[string]string, args ...string) *Main {
	t.Helper()
	cfg, _, err := parseServerConfig(cmd, args, env(vars), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// The server's log is shown when the test fails (or always, with
	// AUDITLOG_TEST_VERBOSE set).
	logs := &testenv.SyncBuffer{}
	var w io.Writer = logs
	if os.Getenv("AUDITLOG_TEST_VERBOSE") != "" {
		w = io.MultiWriter(logs, os.Stderr)
	}
	if d := os.Getenv("AUDITLOG_TEST_LOG_DIR"); d != "" {
		f, err := os.CreateTemp(d, strings.ReplaceAll(t.Name(), "/", "_")+"-*.log")
		if err == nil {
			t.Cleanup(func() { f.Close() })
			w = io.MultiWriter(w, f)
		}
	}
	m := NewMain(cmd, cfg, newLogger(&cfg, w))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Logf("closing %s: %v", cmd, err)
		}
		if t.Failed() {
			t.Logf("log of %s on %s:\n%s", cmd, m.Addr(), logs.String())
		}
	})
	return m
}

func TestConfigFromEnvAndFlags(t *testing.T) {
	cfg, b, err := parseServerConfig("serve", []string{"-http-addr", "127.0.0.1:9999"}, env(map[string]string{
		"AUDITLOG_HTTP_ADDR":            "127.0.0.1:1111",
		"AUDITLOG_STORE":                "elasticsearch",
		"AUDITLOG_ES_URL":               "http://elastic:hunter2@es:9200",
		"AUDITLOG_JWT_SECRET":           "topsecret",
		"AUDITLOG_KAFKA_TOPIC":          "events",
		"AUDITLOG_PERIODIC_SIGNING_KEY": "/run/secrets/signing-key.pem",
		"AUDITLOG_ACCEPT_KEY":           "/run/secrets/accept-key",
	}), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPAddr != "127.0.0.1:9999" {
		t.Errorf("a flag must win over its variable: %q", cfg.HTTPAddr)
	}
	if cfg.Store != "elasticsearch" || cfg.JWTSecret != "topsecret" || cfg.Kafka.DLQTopic != "events.dlq" {
		t.Errorf("env not applied: %+v", cfg)
	}
	var logged bytes.Buffer
	newLogger(&cfg, &logged).Info("starting", b.resolved()...)
	if strings.Contains(logged.String(), "topsecret") || strings.Contains(logged.String(), "hunter2") {
		t.Fatalf("secrets leaked into the start-up log: %s", logged.String())
	}
	if !strings.Contains(logged.String(), `"jwt-secret":"****"`) || !strings.Contains(logged.String(), `"es-url":"http://****@es:9200"`) {
		t.Fatalf("resolved configuration not logged with masks: %s", logged.String())
	}
	// The start-up line holds what was set, masked the same way, and
	// nothing left at its default.
	logged.Reset()
	newLogger(&cfg, &logged).Info("starting", b.changed()...)
	for _, want := range []string{`"jwt-secret":"****"`, `"es-url":"http://****@es:9200"`, `"http-addr":"127.0.0.1:9999"`, `"kafka-topic":"events"`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the start-up line lacks %s: %s", want, logged.String())
		}
	}
	if strings.Contains(logged.String(), "topsecret") || strings.Contains(logged.String(), `"rate-limit"`) || len(logged.String()) > 600 {
		t.Errorf("the start-up line holds a secret or a default: %s", logged.String())
	}
}

func TestConfigErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		cmd  string
		env  map[string]string
		want string
	}{
		"unknown store":           {"serve", map[string]string{"AUDITLOG_STORE": "mongo"}, `AUDITLOG_STORE="mongo"`},
		"es without url":          {"serve", map[string]string{"AUDITLOG_STORE": "elasticsearch"}, "AUDITLOG_ES_URL must be set"},
		"es without key":          {"serve", map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": "http://x"}, "AUDITLOG_PERIODIC_SIGNING_KEY must be set"},
		"bad duration":            {"serve", map[string]string{"AUDITLOG_SHUTDOWN_TIMEOUT": "soon"}, "AUDITLOG_SHUTDOWN_TIMEOUT"},
		"bad int":                 {"serve", map[string]string{"AUDITLOG_KAFKA_PARTITIONS": "many"}, "AUDITLOG_KAFKA_PARTITIONS"},
		"index needs brokers":     {"index", map[string]string{"AUDITLOG_ES_URL": "http://x"}, "AUDITLOG_KAFKA_BROKERS must be set"},
		"index needs es":          {"index", map[string]string{"AUDITLOG_KAFKA_BROKERS": "k:9092"}, "AUDITLOG_ES_URL must be set"},
		"bad log format":          {"serve", map[string]string{"AUDITLOG_LOG_FORMAT": "xml"}, "AUDITLOG_LOG_FORMAT"},
		"bad trusted proxy":       {"serve", map[string]string{"AUDITLOG_TRUSTED_PROXIES": "10.0.0.0/8, 10.0.0.0/33"}, "AUDITLOG_TRUSTED_PROXIES"},
		"negative seed":           {"serve", map[string]string{"AUDITLOG_SEED": "-5"}, "AUDITLOG_SEED=-5: want 0 to"},
		"bad seed end":            {"serve", map[string]string{"AUDITLOG_SEED_END": "yesterday"}, "AUDITLOG_SEED_END=\"yesterday\""},
		"negative rate":           {"serve", map[string]string{"AUDITLOG_RATE_LIMIT": "-1"}, "AUDITLOG_RATE_LIMIT=-1"},
		"no export worker":        {"serve", map[string]string{"AUDITLOG_EXPORT_WORKERS": "0"}, "AUDITLOG_EXPORT_WORKERS=0: want 1 to 64"},
		"negative expiry":         {"serve", map[string]string{"AUDITLOG_EXPORT_EXPIRY": "-1h"}, "AUDITLOG_EXPORT_EXPIRY=-1h0m0s"},
		"unknown plan":            {"serve", map[string]string{"AUDITLOG_DEFAULT_PLAN": "gold"}, `AUDITLOG_DEFAULT_PLAN="gold": want starter, pro, enterprise`},
		"bad starttls":            {"serve", map[string]string{"AUDITLOG_SMTP_STARTTLS": "maybe"}, `AUDITLOG_SMTP_STARTTLS="maybe"`},
		"bad smtp port":           {"serve", map[string]string{"AUDITLOG_SMTP_PORT": "70000"}, "AUDITLOG_SMTP_PORT=70000"},
		"instant alerts":          {"serve", map[string]string{"AUDITLOG_STREAM_ALERT_AFTER": "0s"}, "AUDITLOG_STREAM_ALERT_AFTER=0s: want 1s to 168h"},
		"azure over http":         {"serve", map[string]string{"AUDITLOG_STREAM_AZURE_AUTHORITY": "http://login.example"}, `AUDITLOG_STREAM_AZURE_AUTHORITY="http://login.example": want an https:// URL`},
		"index batch size":        {"index", map[string]string{"AUDITLOG_ES_URL": "http://x", "AUDITLOG_KAFKA_BROKERS": "k:9092", "AUDITLOG_BATCH_SIZE": "0"}, "AUDITLOG_BATCH_SIZE=0"},
		"short session":           {"index", map[string]string{"AUDITLOG_ES_URL": "http://x", "AUDITLOG_KAFKA_BROKERS": "k:9092", "AUDITLOG_KAFKA_SESSION_TIMEOUT": "1s"}, "AUDITLOG_KAFKA_SESSION_TIMEOUT=1s: want 6s"},
		"slow heartbeat":          {"serve", map[string]string{"AUDITLOG_KAFKA_HEARTBEAT_INTERVAL": "3s"}, "AUDITLOG_KAFKA_HEARTBEAT_INTERVAL=3s: want at most a third"},
		"flag out of range":       {"serve", map[string]string{}, "AUDITLOG_EXPORT_LEASE=0s"},
		"bad sensitive type":      {"serve", map[string]string{"AUDITLOG_SENSITIVE_TYPES": "ivr,User Role"}, `AUDITLOG_SENSITIVE_TYPES: "User Role"`},
		"no secret fields":        {"index", map[string]string{"AUDITLOG_ES_URL": "http://x", "AUDITLOG_KAFKA_BROKERS": "k:9092", "AUDITLOG_ACCEPT_KEY": "/k", "AUDITLOG_SECRET_FIELDS": " , "}, "AUDITLOG_SECRET_FIELDS must name"},
		"es serve no accept key":  {"serve", map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": "http://x", "AUDITLOG_PERIODIC_SIGNING_KEY": "/k"}, "AUDITLOG_ACCEPT_KEY must be set"},
		"index no accept key":     {"index", map[string]string{"AUDITLOG_ES_URL": "http://x", "AUDITLOG_KAFKA_BROKERS": "k:9092"}, "AUDITLOG_ACCEPT_KEY must be set"},
		"bad intake domain":       {"serve", map[string]string{"AUDITLOG_STREAM_DATADOG_DOMAINS": "datadoghq.com,https://x/"}, `AUDITLOG_STREAM_DATADOG_DOMAINS: "https://x/" is no domain`},
		"stream no mask key":      {"stream", map[string]string{"AUDITLOG_ES_URL": "http://x", "AUDITLOG_ACCEPT_KEY": "/k"}, "AUDITLOG_STREAM_MASK_KEY must be set"},
		"stream no accept key":    {"stream", map[string]string{"AUDITLOG_ES_URL": "http://x", "AUDITLOG_STREAM_MASK_KEY": "/m"}, "AUDITLOG_ACCEPT_KEY must be set"},
		"es serve streams no key": {"serve", map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": "http://x", "AUDITLOG_ACCEPT_KEY": "/k", "AUDITLOG_STREAM_RUN": "on"}, "AUDITLOG_STREAM_MASK_KEY must be set"},
		"bad mode":                {"serve", map[string]string{"AUDITLOG_MODE": "strict"}, `AUDITLOG_MODE="strict": want production, development or auto`},
		"short mask key":          {"serve", map[string]string{"AUDITLOG_MASK_KEY": "short"}, "AUDITLOG_MASK_KEY: the masking key is 5 bytes: want at least 32"},
		"guessable mask key":      {"serve", map[string]string{"AUDITLOG_MASK_KEY": strings.Repeat("ab", 20)}, "AUDITLOG_MASK_KEY: the masking key has only 2 distinct bytes"},
		"bad frame ancestor":      {"serve", map[string]string{"AUDITLOG_PANEL_FRAME_ANCESTORS": "'self' app.example.com/path"}, `AUDITLOG_PANEL_FRAME_ANCESTORS: "app.example.com/path"`},
		"none and another":        {"serve", map[string]string{"AUDITLOG_PANEL_FRAME_ANCESTORS": "'none' https://app.example.com"}, "'none' cannot be combined"},
		"webhook no secret":       {"serve", map[string]string{"AUDITLOG_RESTORE_WEBHOOK_URL": "https://owner.example/restores"}, "AUDITLOG_RESTORE_SECRET must be set with AUDITLOG_RESTORE_WEBHOOK_URL"},
		"bad webhook url":         {"serve", map[string]string{"AUDITLOG_RESTORE_WEBHOOK_URL": "ftp://owner", "AUDITLOG_RESTORE_SECRET": strings.Repeat("k", 32)}, `AUDITLOG_RESTORE_WEBHOOK_URL="ftp://owner"`},
		"short restore key":       {"serve", map[string]string{"AUDITLOG_RESTORE_SECRET": "short"}, "AUDITLOG_RESTORE_SECRET is 5 bytes: want at least 32"},
		"empty restore topic":     {"serve", map[string]string{"AUDITLOG_RESTORE_TOPIC": " "}, "AUDITLOG_RESTORE_TOPIC=\" \": a topic name must not be empty"},
	} {
		t.Run(name, func(t *testing.T) {
			var args []string
			if name == "flag out of range" {
				args = []string{"--export-lease", "0s"}
			}
			_, _, err := parseServerConfig(tc.cmd, args, env(tc.env), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

func TestHelpNamesEveryVariableAndHidesSecrets(t *testing.T) {
	var out bytes.Buffer
	code := run([]string{"serve", "--help", "all"}, env(map[string]string{"AUDITLOG_JWT_SECRET": "topsecret"}), &out, &out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, v := range []string{"AUDITLOG_HTTP_ADDR", "AUDITLOG_STORE", "AUDITLOG_DATA_DIR", "AUDITLOG_JWT_SECRET",
		"AUDITLOG_INGEST_TOKEN", "AUDITLOG_ES_URL", "AUDITLOG_KAFKA_BROKERS", "AUDITLOG_KAFKA_TOPIC"} {
		if !strings.Contains(out.String(), v) {
			t.Errorf("serve --help does not name %s", v)
		}
	}
	if strings.Contains(out.String(), "topsecret") {
		t.Error("serve --help printed a secret")
	}
	out.Reset()
	if code := run([]string{"frobnicate"}, env(nil), &out, &out); code != 2 || !strings.Contains(out.String(), "unknown command") {
		t.Errorf("unknown command: exit %d, %s", code, out.String())
	}
	out.Reset() // a near miss names the command meant (issue 57)
	if code := run([]string{"serv"}, env(nil), &out, &out); code != 2 || !strings.Contains(out.String(), `unknown command "serv" (did you mean serve?)`) {
		t.Errorf("a mistyped command: exit %d, %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"version"}, env(nil), &out, &out); code != 0 || !strings.HasPrefix(out.String(), "auditlog ") {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
}

func TestTokenCommandMintsAVerifiableToken(t *testing.T) {
	var out, errb bytes.Buffer
	const tenant = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	code := run([]string{"token", "--tenant", tenant, "--role", "superadmin", "--email", "ops@platform.example", "--reason", "ticket CS-1", "--ttl", "1h"},
		env(map[string]string{"AUDITLOG_JWT_SECRET": "s3cret"}), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	v, err := api.NewVerifier(api.AuthConfig{Secret: []byte("s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.Verify(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if p.TenantID != tenant || p.Role != audit.RoleSuperadmin || p.Email != "ops@platform.example" || p.Reason != "ticket CS-1" || !audit.ValidUUID(p.UserID) {
		t.Fatalf("claims: %+v", p)
	}
	if code := run([]string{"token", "--tenant", "acme"}, env(map[string]string{"AUDITLOG_JWT_SECRET": "s"}), &out, &errb); code == 0 {
		t.Fatal("a non-UUID tenant must be refused")
	}
}

// TestMainServesHealth starts the real wiring of serve on :0 with a
// temporary data directory.
func TestMainServesHealth(t *testing.T) {
	cfg, _, err := parseServerConfig("serve", []string{"-http-addr", "127.0.0.1:0", "-data-dir", t.TempDir()}, env(map[string]string{"AUDITLOG_JWT_SECRET": "s"}), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	m := NewMain("serve", cfg, newLogger(&cfg, &logs))
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	get := func(path string) (int, string) {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "auditlog_http_requests_total") || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("/metrics: %d", code)
	}
	code, body := get("/nope")
	var p api.Problem
	if code != 404 || json.Unmarshal([]byte(body), &p) != nil || p.Code != audit.ENOTFOUND || p.RequestID == "" {
		t.Fatalf("unknown route: %d %s", code, body)
	}
	done := make(chan error, 1)
	go func() { done <- m.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
}

// TestServeHelpIsGroupedOnStdout: --help goes to stdout, one line per
// flag, grouped by section in a fixed order; --help all lists every
// variable once, the page itself fits a screen with the other groups
// named, and --help <group> lists one group.
func TestServeHelpIsGroupedOnStdout(t *testing.T) {
	help := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := run(append([]string{"serve", "--help"}, args...), env(nil), &out, &errb); code != 0 || errb.Len() != 0 {
			t.Fatalf("serve --help %v: exit %d, stderr %q", args, code, errb.String())
		}
		return out.String()
	}
	all := help("all")
	last := -1
	for _, s := range []string{"HTTP:", "Auth:", "Store:", "Elasticsearch:", "Kafka:", "Export:", "S3:", "SMTP:", "Logging:"} {
		i := strings.Index(all, "\n"+s+"\n")
		if i < 0 || i < last {
			t.Fatalf("section %s missing or out of order:\n%s", s, all)
		}
		last = i
	}
	if strings.Contains(all, "Other:") {
		t.Errorf("an option belongs to no section:\n%s", all)
	}
	_, b, _ := parseServerConfig("serve", nil, env(nil), io.Discard, io.Discard)
	for _, o := range b.options {
		if n := strings.Count(all, " "+o.env+" "); n != 1 {
			t.Errorf("%s named %d times", o.env, n)
		}
	}
	page := help()
	if n := strings.Count(page, "\n"); n > 60 || strings.Contains(page, "AUDITLOG_ES_URL") || !strings.Contains(page, "AUDITLOG_HTTP_ADDR") ||
		!strings.Contains(page, "  elasticsearch ") || !strings.Contains(page, "--help all") {
		t.Errorf("serve --help: %d lines, the Elasticsearch group folded, HTTP whole:\n%s", n, page)
	}
	es := help("elasticsearch")
	if !strings.Contains(es, "AUDITLOG_ES_URL") || strings.Contains(es, "AUDITLOG_HTTP_ADDR") {
		t.Errorf("serve --help elasticsearch:\n%s", es)
	}
	if bad := help("nonsense"); !strings.Contains(bad, `No group named "nonsense"`) || !strings.Contains(bad, "elasticsearch, export") {
		t.Errorf("serve --help nonsense:\n%s", bad)
	}
}

// TestEveryCommandsHelpIsOneScreenOnStdout (issues 42 and 44): every
// command answers --help on stdout with exit 0, its own flags first, in
// at most 60 lines, the groups it rarely uses folded: log verify, which
// most run on the embedded store, names no Elasticsearch flag until asked
// (--help elasticsearch or all).
func TestEveryCommandsHelpIsOneScreenOnStdout(t *testing.T) {
	for _, args := range [][]string{{"serve"}, {"index"}, {"token"}, {"gen"}, {"healthcheck"}, {"verify"}, {"log", "verify"}, {"log"},
		{"witness"}, {"export-periodic"}, {"tenant", "promote"}, {"tenant", "set-plan"}, {"tenant", "periodic"}, {"stream"}, {"stream", "check"}} {
		var out, errb bytes.Buffer
		code := run(append(args, "--help"), env(nil), &out, &errb)
		help := out.String()
		if code != 0 || errb.Len() != 0 || !strings.HasPrefix(help, "Usage: auditlog ") {
			t.Errorf("%v --help: exit %d, stderr %q, stdout %.80q", args, code, errb.String(), help)
		}
		if n := strings.Count(help, "\n"); n > 60 {
			t.Errorf("%v --help: %d lines", args, n)
		}
		if strings.Contains(help, "Usage of ") {
			t.Errorf("%v --help: Go's default flag format", args)
		}
	}
	var out bytes.Buffer
	run([]string{"log", "verify", "--help"}, env(nil), &out, &out)
	if strings.Contains(out.String(), "-es-url ") || !strings.Contains(out.String(), "-data-dir ") || !strings.Contains(out.String(), "-tenant ") {
		t.Errorf("log verify --help shows its Elasticsearch flags or misses its own:\n%s", out.String())
	}
	out.Reset()
	run([]string{"log", "verify", "--help", "elasticsearch"}, env(nil), &out, &out)
	if !strings.Contains(out.String(), "-es-url ") {
		t.Errorf("log verify --help elasticsearch:\n%s", out.String())
	}
}

// TestUnknownVariablesAreNamedWithTheClosestKnownOne: a misspelt
// AUDITLOG_* variable is reported with the name it probably meant; the
// scripts' and tests' own variables are not.
func TestUnknownVariablesAreNamedWithTheClosestKnownOne(t *testing.T) {
	got := unknownVars([]string{"AUDITLOG_EXPORT_WORKER=2", "AUDITLOG_STORE=sqlite", "AUDITLOG_TEST_ES_URL=x",
		"AUDITLOG_JWT_SECRT=s", "HOME=/root", "AUDITLOG_CACHE_DIR=/tmp"})
	want := []string{
		"AUDITLOG_EXPORT_WORKER is not a known variable (did you mean AUDITLOG_EXPORT_WORKERS?)",
		"AUDITLOG_JWT_SECRT is not a known variable (did you mean AUDITLOG_JWT_SECRET?)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestIndexConfigNeedsOnlyItsOwnVariables: index starts from the Elasticsearch
// and Kafka variables alone; no rule of serve's (the seed, the data
// directory, the secrets) applies to it.
func TestIndexConfigNeedsOnlyItsOwnVariables(t *testing.T) {
	if _, _, err := parseServerConfig("index", nil, env(map[string]string{"AUDITLOG_ES_URL": "http://es:9200", "AUDITLOG_KAFKA_BROKERS": "k:9092",
		"AUDITLOG_ACCEPT_KEY": "/run/secrets/accept-key"}), io.Discard, io.Discard); err != nil {
		t.Fatalf("index with its own variables: %v", err)
	}
}

// testKeyFile writes a fresh signing key (PKCS #8 PEM, 0600) and returns
// its file: AUDITLOG_PERIODIC_SIGNING_KEY of a serve on Elasticsearch,
// which refuses to start without one.
func testKeyFile(t testing.TB) string {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(nil)
	file := filepath.Join(t.TempDir(), "signing-key.pem")
	if err := keyfile.Create(file, priv); err != nil {
		t.Fatal(err)
	}
	return file
}

// testAcceptKey writes the tests' acceptance key (accepttest.Key) into a
// file and returns it: AUDITLOG_ACCEPT_KEY of the commands that write
// events on Elasticsearch, which refuse to start without one. Every such
// file holds the same key, so a serve and an index of one test agree.
func testAcceptKey(t testing.TB) string {
	t.Helper()
	return accepttest.File(t, t.TempDir(), "accept-key")
}

// testStreamMaskKey writes the tests' streams' masking key into a file
// (0600), as AUDITLOG_STREAM_MASK_KEY reads it, and returns the file.
func testStreamMaskKey(t testing.TB) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), StreamMaskKeyFile)
	if err := os.WriteFile(file, []byte(base64.StdEncoding.EncodeToString(accepttest.MaskKey)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestNoFlagTakesAQuotedWordAsItsValueName (issue 42): Go's flag package
// prints a back-quoted word of a flag's usage as the name of its value
// ("-es-promote-above auditlog tenant promote"). No command's help has a
// flag whose value name is more than one word.
func TestNoFlagTakesAQuotedWordAsItsValueName(t *testing.T) {
	for _, args := range [][]string{{"serve"}, {"index"}, {"token"}, {"gen"}, {"healthcheck"}, {"verify"}, {"log", "verify"},
		{"export-periodic"}, {"tenant", "promote"}, {"tenant", "set-plan"}, {"witness"}} {
		var out bytes.Buffer
		run(append(args, "--help", "all"), env(nil), &out, &out)
		for _, line := range strings.Split(out.String(), "\n") {
			// "  -name value" padded to 29 characters, then the variable
			// or the usage.
			if !strings.HasPrefix(line, "  -") || len(line) < 29 {
				continue
			}
			if f := strings.Fields(line[:29]); len(f) > 2 {
				t.Errorf("%v --help: %q: the value's name is more than one word", args, line)
			}
		}
		if out.Len() == 0 {
			t.Errorf("%v --help printed nothing", args)
		}
	}
}
