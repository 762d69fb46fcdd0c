package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// panelTools returns node and Chromium, or stops the test: it fails with
// CI=true, since the panel's browser tests must run there.
func panelTools(t *testing.T) (node, chromium string) {
	t.Helper()
	missing := func(what string, err error) {
		if testenv.CI() {
			t.Fatalf("the panel's browser tests need %s: %v (scripts/prereqs.sh installs it)", what, err)
		}
		t.Skipf("the panel's browser tests need %s: %v", what, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node", err)
	}
	if chromium, err = exec.LookPath("chromium"); err != nil {
		missing("Debian's chromium", err)
	}
	if _, err := os.Stat("../../panel/node_modules/playwright-core"); err != nil {
		missing("panel/node_modules (scripts/panel.sh deps)", err)
	}
	return node, chromium
}

// panelPolicy ingests three versions of a recording policy and returns
// its id and the versions' event ids.
func panelPolicy(t *testing.T, c client) (string, []string) {
	const policy = "6e7f8091-a2b3-4c4d-8e5f-60718293a4b5"
	states := []string{`{"mode":"all","retentionDays":30}`, `{"mode":"some","retentionDays":30}`, `{"mode":"none","retentionDays":60}`}
	var ids, lines []string
	for i, s := range states {
		id := fmt.Sprintf("evt_audit_7f8091a2-b3c4-4d5e-8f60-718293a4b5c%d", i)
		action, before := "update", `,"before":`+states[max(i-1, 0)]
		if i == 0 {
			action, before = "create", ""
		}
		lines = append(lines, fmt.Sprintf(`{"id":"%s","timestamp":"%s","tenantId":"%s","actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"policy-owner@x.example","role":"admin"},`+
			`"action":"%s","resource":{"type":"recording_policy","id":"%s"}%s,"after":%s}`,
			id, time.Now().Add(time.Duration(i-10)*time.Minute).UTC().Format(audit.TimestampLayout), demoTenant, action, policy, before, s))
		ids = append(ids, id)
	}
	code, out := c.do("POST", "/api/audit-events", "svc", []byte("["+strings.Join(lines, ",")+"]"))
	if code != 200 || !strings.Contains(string(out), `"accepted":3`) {
		t.Fatalf("ingest: %d %s", code, out)
	}
	return policy, ids
}

// hostPage is an application on another origin that embeds the panel in
// an iframe and hands it the token when it says it is ready.
func hostPage(t *testing.T, panelURL, token string) *httptest.Server {
	page := `<!doctype html><title>Host</title><iframe src="` + panelURL + `" style="width:1400px;height:900px"></iframe>
<script>addEventListener("message", (e) => {
  if (e.data && e.data.type === "auditlog:ready") e.source.postMessage({type: "auditlog:token", token: "` + token + `"}, "` + strings.TrimSuffix(panelURL, "/settings/audit/?range=all") + `");
});</script>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPanelInTheBrowser runs the panel's browser checks (panel/e2e/run.mjs)
// in Debian's Chromium against the real serve with demo data, on each
// store: sign-in and embedding, filters in the URL checked against the
// API, sorting, load more, the detail with compare and history, restore
// with its 409, both exports, the operator view, follow mode, the
// histogram, accessibility (axe-core) and the keyboard, an expired token
// and an outage. It writes screenshots of the main views at two widths
// (into docs/screenshots with AUDITLOG_UPDATE_SCREENSHOTS=1).
func TestPanelInTheBrowser(t *testing.T) {
	// The two stores' runs beside each other and beside the SIGKILL test
	// of streams (make test runs them without the race detector): each
	// spends most of its minutes waiting, on a browser or on children.
	t.Parallel()
	node, chromium := panelTools(t)
	for _, store := range []string{"sqlite", "elasticsearch"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			panelInTheBrowser(t, node, chromium, store)
		})
	}
}

func panelInTheBrowser(t *testing.T, node, chromium, store string) {
	host := httptest.NewUnstartedServer(nil) // its origin must be known before serve starts
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret"}
	if store == "elasticsearch" {
		vars = esServeEnv(t, testenv.Name("auditlog-browser"))
		vars["AUDITLOG_LOG_LEVEL"] = "info"
	}
	vars["AUDITLOG_INGEST_TOKEN"], vars["AUDITLOG_SEED"] = "svc", "30000"
	// The demo's fixed dates drift out of the panel's relative ranges
	// (last 30 days) as the calendar moves on: the browser checks seed
	// the 30 days up to now.
	vars["AUDITLOG_SEED_END"] = "now"
	vars["AUDITLOG_PANEL_FRAME_ANCESTORS"] = "'self' http://" + host.Listener.Addr().String()
	m := startMain(t, "serve", vars)
	base := "http://" + m.Addr()
	policy, versions := panelPolicy(t, client{t, base})
	if store == "elasticsearch" {
		refreshES(t, vars)
	}
	mint := func(role string, ttl time.Duration) string {
		tok, err := api.MintToken([]byte("s3cret"), audit.Principal{UserID: "3a4b5c6d-7e8f-4a0b-8c1d-2e3f4a5b6c7d", Email: role + "@demo.example", Role: role,
			TenantID: demoTenant}, ttl, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	admin := mint(audit.RoleAdmin, time.Hour)
	page := hostPage(t, base+"/settings/audit/?range=all", admin)
	host.Config.Handler = page.Config.Handler
	host.Start()
	defer host.Close()
	shots := t.TempDir()
	if os.Getenv("AUDITLOG_UPDATE_SCREENSHOTS") == "1" && store == "sqlite" {
		shots, _ = filepath.Abs("../../docs/screenshots")
	}
	cmd := exec.Command(node, "e2e/run.mjs")
	cmd.Dir = filepath.Join("..", "..", "panel")
	cmd.Env = append(os.Environ(), "PANEL_BASE="+base, "PANEL_ADMIN_TOKEN="+admin, "PANEL_SUPER_TOKEN="+mint(audit.RoleSuperadmin, time.Hour),
		"PANEL_HOLD_TOKEN="+mint(hold.Role, time.Hour),
		"PANEL_EXPIRED_TOKEN="+mint(audit.RoleAdmin, -time.Minute), "PANEL_INGEST_TOKEN=svc", "PANEL_HOST_URL=http://"+host.Listener.Addr().String(),
		"PANEL_TENANT="+demoTenant, "PANEL_POLICY_ID="+policy, "PANEL_POLICY_VERSIONS="+strings.Join(versions, ","), "CHROMIUM="+chromium,
		"PANEL_SHOTS="+t.TempDir(), "PANEL_SCREENSHOTS="+shots)
	out, err := cmd.CombinedOutput()
	t.Logf("panel/e2e/run.mjs:\n%s", out)
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "RETRY ") {
			t.Log(line)
		}
	}
	if err != nil {
		// One line naming the failed checks: CI summaries keep the
		// failure's own line, not the log above it.
		var failed []string
		in := false
		for _, line := range strings.Split(string(out), "\n") {
			in = strings.HasPrefix(line, "FAIL ") || in && !strings.HasPrefix(line, "ok ") && !strings.Contains(line, " passed, ")
			if in {
				failed = append(failed, strings.TrimSpace(line))
			}
		}
		t.Fatalf("the panel's browser checks failed (%v): %s", err, strings.Join(failed, " | "))
	}
}

// TestPanelServedOnEveryStore: serve answers the panel from the embedded
// assets on both stores, and sends / there.
func TestPanelServedOnEveryStore(t *testing.T) {
	for _, store := range []string{"sqlite", "elasticsearch"} {
		t.Run(store, func(t *testing.T) {
			vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret"}
			if store == "elasticsearch" {
				vars = esServeEnv(t, testenv.Name("auditlog-panel"))
			}
			m := startMain(t, "serve", vars)
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			res, err := noRedirect.Get("http://" + m.Addr() + "/")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/settings/audit/" {
				t.Fatalf("/: %d %q", res.StatusCode, res.Header.Get("Location"))
			}
			code, body := client{t, "http://" + m.Addr()}.do("GET", "/settings/audit/?range=all", "", nil)
			if code != 200 || !strings.Contains(string(body), `<div id="root">`) {
				t.Fatalf("the panel: %d %s", code, body)
			}
		})
	}
}

// refreshES makes everything written to serve's Elasticsearch visible.
// A refresh that answers with an error or a failed shard (a busy shared
// node) made only part of it visible, and a test counting what it sees
// would then wait for a partial total: it is tried again.
func refreshES(t *testing.T, vars map[string]string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		res, err := http.Post(vars["AUDITLOG_ES_URL"]+"/"+vars["AUDITLOG_ES_INDEX_PREFIX"]+"-events-*/_refresh?allow_no_indices=true", "application/json", nil)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		var out struct {
			Shards struct{ Failed int } `json:"_shards"`
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || out.Shards.Failed > 0 {
			return fmt.Errorf("refresh: %d %s", res.StatusCode, body)
		}
		return nil
	})
}
