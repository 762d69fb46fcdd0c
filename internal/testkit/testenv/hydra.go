package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Hydra is a real Ory Hydra (an OpenID Connect provider) started for one
// test, in memory, stopped at its end. Its access tokens are JWTs; what a
// platform adds to them (the tenant, the role, the e-mail) comes from its
// token hook, which the test answers with Claims, by client id: Hydra
// puts those under the token's ext claim.
type Hydra struct {
	Issuer string // the public URL: discovery, JWKS, token endpoint
	admin  string
	t      testing.TB
	mu     sync.Mutex
	claims map[string]map[string]any
}

// StartHydra starts Hydra from the build AUDITLOG_TEST_HYDRA names
// (scripts/services.sh hydra). With CI=true, a missing build fails the
// test.
func StartHydra(t testing.TB) *Hydra {
	t.Helper()
	bin := require(t, "AUDITLOG_TEST_HYDRA", os.Getenv("AUDITLOG_TEST_HYDRA"))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("AUDITLOG_TEST_HYDRA=%s: %v (build it: scripts/services.sh hydra)", bin, err)
	}
	h := &Hydra{t: t, claims: map[string]map[string]any{}}
	hook := httptest.NewServer(http.HandlerFunc(h.tokenHook))
	t.Cleanup(hook.Close)
	public, admin := FreeAddr(t), FreeAddr(t)
	h.Issuer, h.admin = "http://"+public, "http://"+admin
	_, publicPort, _ := net.SplitHostPort(public)
	_, adminPort, _ := net.SplitHostPort(admin)
	// --dev allows an http issuer; DSN=memory keeps everything in the
	// process (SQLite in memory).
	cmd := exec.Command(bin, "serve", "all", "--dev", "--sqa-opt-out")
	cmd.Env = append(os.Environ(), "DSN=memory", "URLS_SELF_ISSUER="+h.Issuer, "LOG_LEVEL=warn",
		"SERVE_PUBLIC_HOST=127.0.0.1", "SERVE_PUBLIC_PORT="+publicPort, "SERVE_ADMIN_HOST=127.0.0.1", "SERVE_ADMIN_PORT="+adminPort,
		"STRATEGIES_ACCESS_TOKEN=jwt", "OAUTH2_TOKEN_HOOK_URL="+hook.URL, "SECRETS_SYSTEM="+Name("hydra-system-secret"))
	out := &SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("Hydra's output:\n%s", out.String())
		}
	})
	Eventually(t, time.Minute, func() error {
		for _, u := range []string{h.Issuer + "/health/ready", h.admin + "/health/ready"} {
			res, err := http.Get(u)
			if err != nil {
				return err
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				return fmt.Errorf("%s: %d", u, res.StatusCode)
			}
		}
		return nil
	})
	return h
}

// tokenHook answers Hydra's token hook: the claims of the client asking.
func (h *Hydra) tokenHook(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Request struct {
			ClientID string `json:"client_id"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	claims := h.claims[req.Request.ClientID]
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"session": map[string]any{"access_token": claims}})
}

// Client registers a client of the client-credentials grant, allowed the
// audience, whose tokens carry claims (under ext); it returns its id
// (Hydra makes it a UUID, the token's sub) and secret.
func (h *Hydra) Client(audience string, claims map[string]any) (id, secret string) {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"grant_types": []string{"client_credentials"}, "audience": []string{audience},
		"token_endpoint_auth_method": "client_secret_basic", "access_token_strategy": "jwt"})
	var c struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	h.do(http.MethodPost, h.admin+"/admin/clients", "application/json", body, &c)
	h.mu.Lock()
	h.claims[c.ClientID] = claims
	h.mu.Unlock()
	return c.ClientID, c.ClientSecret
}

// Token is an access token of the client for the audience.
func (h *Hydra) Token(id, secret, audience string) string {
	h.t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "audience": {audience}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, h.Issuer+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	h.send(req, &tok)
	return tok.AccessToken
}

// RotateKey adds a new signing key to the access tokens' key set; Hydra
// signs with it from then on, and keeps publishing the earlier ones.
func (h *Hydra) RotateKey(kid string) {
	h.t.Helper()
	body, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": kid, "use": "sig"})
	h.do(http.MethodPost, h.admin+"/admin/keys/hydra.jwt.access-token", "application/json", body, nil)
}

func (h *Hydra) do(method, u, contentType string, body []byte, out any) {
	h.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, u, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	h.send(req, out)
}

func (h *Hydra) send(req *http.Request, out any) {
	h.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	if res.StatusCode >= 300 {
		h.t.Fatalf("Hydra %s %s: %d %s", req.Method, req.URL, res.StatusCode, b.String())
	}
	if out != nil {
		if err := json.Unmarshal(b.Bytes(), out); err != nil {
			h.t.Fatalf("Hydra %s %s: %v: %s", req.Method, req.URL, err, b.String())
		}
	}
}
