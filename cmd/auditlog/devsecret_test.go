package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/api"
)

// mint runs `auditlog token` with vars and returns its output, error
// output and exit code.
func mint(vars map[string]string, args ...string) (string, string, int) {
	var out, errb strings.Builder
	code := run(append([]string{"token"}, args...), env(vars), &out, &errb)
	return strings.TrimSpace(out.String()), errb.String(), code
}

// TestEmbeddedDefaultNeedsNoHiddenSecret: serve on the embedded store
// with no secret writes a development secret into its data directory,
// `auditlog token` run from another shell (no AUDITLOG_JWT_SECRET) signs
// with it, and the server accepts the token, also after a restart.
// Elasticsearch deployments still must configure a secret or a key.
func TestEmbeddedDefaultNeedsNoHiddenSecret(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := mint(map[string]string{"AUDITLOG_DATA_DIR": dir}, "--tenant", demoTenant); code == 0 ||
		!strings.Contains(errOut, "AUDITLOG_JWT_SECRET") || !strings.Contains(errOut, filepath.Join(dir, DevSecretFile)) {
		t.Fatalf("token before any serve must say what to do: exit %d, %q", code, errOut)
	}
	for restart := 0; restart < 2; restart++ {
		m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir})
		st, err := os.Stat(filepath.Join(dir, DevSecretFile))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("development secret: %v %v", st, err)
		}
		tok, errOut, code := mint(map[string]string{"AUDITLOG_DATA_DIR": dir}, "--tenant", demoTenant, "--role", "admin")
		if code != 0 {
			t.Fatalf("token: %s", errOut)
		}
		if res, body := request(t, "GET", "http://"+m.Addr()+"/api/audit-logs", tok, nil); res.StatusCode != 200 {
			t.Fatalf("restart %d: the development token is refused: %d %s", restart, res.StatusCode, body)
		}
		m.Close()
	}
	_, _, err := parseServerConfig("serve", nil, env(map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": "http://x", "AUDITLOG_DATA_DIR": t.TempDir()}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "AUDITLOG_JWT_SECRET") {
		t.Fatalf("an Elasticsearch deployment without a secret must not start: %v", err)
	}
}

// TestTokenFlags: roles are checked, a missing tenant is named, the user
// id is derived from the e-mail (stable, case-insensitive), and flags the
// command ignores are not offered.
func TestTokenFlags(t *testing.T) {
	vars := map[string]string{"AUDITLOG_JWT_SECRET": "s3cret"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tenant", demoTenant, "--role", "agent"}, "want admin, superadmin, legal_hold or ingest"},
		{[]string{"--role", "admin"}, "--tenant is missing"},
		{[]string{"--tenant", demoTenant, "--ttl", "0s"}, "--ttl"},
		{[]string{"--tenant", "acme"}, "tenant must be a UUID"},
	} {
		if _, errOut, code := mint(vars, tc.args...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want an error saying %q", tc.args, code, errOut, tc.want)
		}
	}
	v, _ := api.NewVerifier(api.AuthConfig{Secret: []byte("s3cret"), Issuer: api.Issuer, Audience: api.Audience})
	sub := func(email string) string {
		tok, errOut, code := mint(vars, "--tenant", demoTenant, "--email", email)
		if code != 0 {
			t.Fatal(errOut)
		}
		p, err := v.Verify(tok)
		if err != nil {
			t.Fatal(err)
		}
		return p.UserID
	}
	if a, b, c := sub("ana@acme.example"), sub("Ana@Acme.example"), sub("bob@acme.example"); a != b || a == c {
		t.Fatalf("user ids: %s %s %s; one e-mail must be one user, another e-mail another", a, b, c)
	}
	if _, ing, code := mint(vars, "--role", "ingest"); code != 0 {
		t.Fatalf("an ingest token needs no tenant: %s", ing)
	}
	help, _, _ := mint(vars, "--help") // on stdout
	if strings.Contains(help, "jwt-public-key") || !strings.Contains(help, "derived from the e-mail") {
		t.Fatalf("token --help: %s", help)
	}
}

// TestMakeRunFirstScreenIsAToken: on a fresh checkout (no data
// directory), what `make run` and `make demo` print before serve starts is
// a working token command and the panel's sign-in link, not an error: the
// banner writes the development secret that serve then uses.
func TestMakeRunFirstScreenIsAToken(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed, and make test runs this")
	}
	data := filepath.Join(t.TempDir(), "fresh")
	cmd := exec.Command("make", "--no-print-directory", "-s", "banner")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "AUDITLOG_DATA_DIR="+data, "AUDITLOG_JWT_SECRET=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make banner: %v\n%s", err, out)
	}
	_, tok, ok := strings.Cut(string(out), "export TOKEN=")
	tok, _, _ = strings.Cut(tok, "\n")
	if !ok || !strings.HasPrefix(tok, "ey") || strings.Contains(string(out), "no JWT secret") {
		t.Fatalf("the first screen:\n%s", out)
	}
	// The panel's sign-in link comes first (issue 57), with the same token.
	if !strings.Contains(string(out), "/settings/audit/#token="+tok+"\n") {
		t.Fatalf("the first screen has no panel link with the token:\n%s", out)
	}
	secret, _, err := devSecret(data, true)
	if err != nil {
		t.Fatal(err)
	}
	v, err := api.NewVerifier(api.AuthConfig{Secret: []byte(secret), Issuer: "auditlog", Audience: "auditlog"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(tok); err != nil {
		t.Fatalf("the printed token does not verify with the secret serve uses: %v", err)
	}
}
