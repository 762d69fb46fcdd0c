package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// superadminRead makes one operator read with the given forwarding
// headers and returns the actor.ip of the access record it left in the
// tenant's log.
func superadminRead(t *testing.T, base, opTok, adminTok string, header ...string) string {
	t.Helper()
	h := append([]string{api.ReasonHeader, "ticket CS-7"}, header...)
	if res, body := request(t, "GET", base+"/api/audit-logs?pageSize=1", opTok, nil, h...); res.StatusCode != 200 {
		t.Fatalf("operator read: %d %s", res.StatusCode, body)
	}
	res, body := request(t, "GET", base+"/api/audit-logs?crossTenant=true&pageSize=1", adminTok, nil)
	var lr api.ListResponse
	if res.StatusCode != 200 || json.Unmarshal(body, &lr) != nil || len(lr.Data) != 1 {
		t.Fatalf("reading the access record: %d %s", res.StatusCode, body)
	}
	return lr.Data[0].Actor.IP
}

// TestForwardingHeadersTrustedOnlyFromConfiguredProxies: by default a
// client's X-Forwarded-For or X-Real-IP does not become the actor.ip of
// the records the service writes about it; with the peer configured as a
// trusted proxy, it does.
func TestForwardingHeadersTrustedOnlyFromConfiguredProxies(t *testing.T) {
	op := audit.Principal{UserID: "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d", Email: "ops@platform.example", Role: audit.RoleSuperadmin, TenantID: demoTenant}
	admin := audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant}
	spoof := [][]string{{"X-Forwarded-For", "198.51.100.7"}, {"X-Real-IP", "198.51.100.8"}, {"X-Forwarded-For", "198.51.100.9, 127.0.0.1"}}
	for _, tc := range []struct {
		name, trusted string
		want          []string
	}{
		{"no trusted proxy", "", []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"}},
		{"another proxy trusted", "10.0.0.0/8", []string{"127.0.0.1", "127.0.0.1", "127.0.0.1"}},
		{"the peer trusted", "127.0.0.1", []string{"198.51.100.7", "198.51.100.8", "198.51.100.9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(),
				"AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_TRUSTED_PROXIES": tc.trusted})
			base := "http://" + m.Addr()
			for i, h := range spoof {
				if got := superadminRead(t, base, token(t, "s3cret", op), token(t, "s3cret", admin), h...); got != tc.want[i] {
					t.Errorf("%s: %s recorded actor.ip %q, want %q", h[0], h[1], got, tc.want[i])
				}
			}
		})
	}
}

// TestTokensTheServiceCannotRecordAre401: on the real wiring, tokens with
// a foreign issuer or audience, no subject, or an e-mail that is not a bare
// address are refused at authentication with the reason, on the endpoints
// that record the caller (an export, an operator read) as on the others:
// never a 500. The development token of `auditlog token` passes.
func TestTokensTheServiceCannotRecordAre401(t *testing.T) {
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret"})
	base := "http://" + m.Addr()
	now := time.Now()
	sign := func(role string, mut func(*api.Claims)) string {
		c := api.Claims{Role: role, Tenant: demoTenant, Email: "ops@platform.example", Reason: "ticket CS-8", RegisteredClaims: jwt.RegisteredClaims{
			Issuer: api.Issuer, Audience: jwt.ClaimStrings{api.Audience}, Subject: "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d",
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}
		mut(&c)
		tok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte("s3cret"))
		return tok
	}
	bad := map[string]func(*api.Claims){
		"foreign issuer":   func(c *api.Claims) { c.Issuer = "https://idp.example" },
		"foreign audience": func(c *api.Claims) { c.Audience = jwt.ClaimStrings{"billing"} },
		"no subject":       func(c *api.Claims) { c.Subject = "" },
		"display-name":     func(c *api.Claims) { c.Email = "Ops <ops@platform.example>" },
		"bare word e-mail": func(c *api.Claims) { c.Email = "ops" },
		"long e-mail":      func(c *api.Claims) { c.Email = strings.Repeat("o", 250) + "@platform.example" },
	}
	paths := []string{"/api/audit-logs", "/api/audit-logs/export.csv", "/api/audit-logs/stats?groupBy=action"}
	for name, mut := range bad {
		for _, role := range []string{audit.RoleAdmin, audit.RoleSuperadmin} {
			for _, p := range paths {
				res, body := request(t, "GET", base+p, sign(role, mut), nil)
				if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Content-Type") != api.ProblemContentType {
					t.Errorf("%s, %s, %s: %d %s, want a 401 problem", name, role, p, res.StatusCode, body)
				}
			}
		}
	}
	for _, role := range []string{audit.RoleAdmin, audit.RoleSuperadmin} {
		var out, errb strings.Builder
		if code := run([]string{"token", "--tenant", demoTenant, "--role", role, "--reason", "ticket CS-9"}, env(map[string]string{"AUDITLOG_JWT_SECRET": "s3cret"}), &out, &errb); code != 0 {
			t.Fatalf("token: %s", errb.String())
		}
		for _, p := range paths {
			if res, body := request(t, "GET", base+p, strings.TrimSpace(out.String()), nil); res.StatusCode != 200 {
				t.Errorf("development %s token on %s: %d %s", role, p, res.StatusCode, body)
			}
		}
	}
}
