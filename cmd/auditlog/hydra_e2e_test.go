package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestTokensFromOryHydra (issue 57): a real OpenID Connect provider, Ory
// Hydra, signs the tokens. serve is configured with its issuer only
// (discovery finds the JWKS) and reads the caller from where Hydra puts a
// platform's claims (ext.tenant, ext.role, ext.email:
// AUDITLOG_JWT_CLAIM_*); the sub is Hydra's client id. A client's token
// reads its tenant's log; a signing key rotated in at Hydra in the middle
// of the test signs the next token, which is accepted at once (the
// unknown kid reads the JWKS again), and the earlier token still works
// while Hydra publishes its key. A token for another audience, and one of
// a client without a tenant, are 401s that say why.
func TestTokensFromOryHydra(t *testing.T) {
	h := testenv.StartHydra(t)
	admin := map[string]any{"tenant": demoTenant, "role": "admin", "email": "ines@acme.example"}
	id, secret := h.Client("auditlog", admin)
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(),
		"AUDITLOG_JWT_OIDC_ISSUER": h.Issuer, "AUDITLOG_JWT_AUDIENCE": "auditlog", "AUDITLOG_CURSOR_SECRET": "cursor-secret",
		"AUDITLOG_JWT_CLAIM_TENANT": "ext.tenant", "AUDITLOG_JWT_CLAIM_ROLE": "ext.role", "AUDITLOG_JWT_CLAIM_EMAIL": "ext.email",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "50", "AUDITLOG_PERIODIC_EXPORT": "false"})
	cl := client{t, "http://" + m.Addr()}
	get := func(tok string) (int, string) {
		code, body := cl.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
		return code, string(body)
	}
	first := h.Token(id, secret, "auditlog")
	if code, body := get(first); code != 200 || !strings.Contains(body, demoTenant) {
		t.Fatalf("a token of Hydra: %d %s\nits claims: %s", code, body, claimsOf(t, first))
	}

	h.RotateKey("rotated-in-test")
	second := h.Token(id, secret, "auditlog")
	if kidOf(t, second) == kidOf(t, first) {
		t.Fatalf("Hydra signed with the same key after the rotation (kid %s)", kidOf(t, first))
	}
	if code, body := get(second); code != 200 {
		t.Fatalf("a token of the key rotated in: %d %s", code, body)
	}
	if code, body := get(first); code != 200 {
		t.Fatalf("the earlier token, its key still published: %d %s", code, body)
	}

	otherID, otherSecret := h.Client("another-service", admin)
	if code, body := get(h.Token(otherID, otherSecret, "another-service")); code != 401 || !strings.Contains(body, "audience") {
		t.Errorf("a token for another audience: %d %s, want a 401 naming the audience", code, body)
	}
	noTenantID, noTenantSecret := h.Client("auditlog", map[string]any{"role": "admin", "email": "ines@acme.example"})
	if code, body := get(h.Token(noTenantID, noTenantSecret, "auditlog")); code != 401 || !strings.Contains(body, "tenant") {
		t.Errorf("a token without a tenant: %d %s, want a 401 naming tenant", code, body)
	}
}

// jwtPart decodes part i (0: header, 1: claims) of a JWT.
func jwtPart(t *testing.T, tok string, i int) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %.40s…", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	var out map[string]any
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func kidOf(t *testing.T, tok string) any { return jwtPart(t, tok, 0)["kid"] }

func claimsOf(t *testing.T, tok string) string {
	b, _ := json.Marshal(jwtPart(t, tok, 1))
	return string(b)
}
