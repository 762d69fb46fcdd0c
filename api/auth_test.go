package api_test

import (
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

const tenantA = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

func TestVerifier(t *testing.T) {
	secret := []byte("dev-secret")
	v, err := api.NewVerifier(api.AuthConfig{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	admin := audit.Principal{UserID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "a@x.example", Role: audit.RoleAdmin, TenantID: tenantA}
	good, _ := api.MintToken(secret, admin, time.Hour, now)
	expired, _ := api.MintToken(secret, admin, -time.Hour, now.Add(-2*time.Hour))
	otherKey, _ := api.MintToken([]byte("other"), admin, time.Hour, now)
	unknownRole, _ := api.MintToken(secret, audit.Principal{Role: "agent", TenantID: tenantA}, time.Hour, now)
	claims := api.Claims{Role: audit.RoleAdmin, Tenant: tenantA, Email: admin.Email, RegisteredClaims: jwt.RegisteredClaims{
		Subject: admin.UserID, ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rs256, _ := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(rsaKey)
	noTenant, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, api.Claims{Role: audit.RoleAdmin,
		RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}).SignedString(secret)
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, api.Claims{Role: audit.RoleAdmin, Tenant: tenantA}).SignedString(secret)

	p, err := v.Verify(good)
	if err != nil || p != admin {
		t.Fatalf("good token: %+v %v", p, err)
	}
	// Each problem is named (issue 57: every one was "invalid token",
	// a token minted for another data directory's secret included).
	for name, tc := range map[string]struct {
		token, code, says string
	}{
		"missing":         {"", audit.EUNAUTHORIZED, "missing bearer token"},
		"garbage":         {"abc.def.ghi", audit.EUNAUTHORIZED, "malformed token"},
		"expired":         {expired, audit.EUNAUTHORIZED, "token expired"},
		"bad signature":   {otherKey, audit.EUNAUTHORIZED, "signed with another secret than AUDITLOG_JWT_SECRET"},
		"alg none":        {none, audit.EUNAUTHORIZED, "algorithm this service does not accept (accepted: HS256)"},
		"wrong algorithm": {rs256, audit.EUNAUTHORIZED, "algorithm this service does not accept (accepted: HS256)"},
		"no tenant":       {noTenant, audit.EUNAUTHORIZED, "cannot be recorded"},
		"no expiry":       {noExp, audit.EUNAUTHORIZED, "no expiry (exp)"},
		"unknown role":    {unknownRole, audit.EFORBIDDEN, `role "agent"`},
	} {
		if _, err := v.Verify(tc.token); audit.ErrorCode(err) != tc.code || !strings.Contains(audit.ErrorMessage(err), tc.says) {
			t.Errorf("%s: got %v (%q), want %s saying %q", name, err, audit.ErrorMessage(err), tc.code, tc.says)
		}
	}

	rv, err := api.NewVerifier(api.AuthConfig{PublicKey: &rsaKey.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rv.Verify(rs256); err != nil {
		t.Fatalf("RS256 token with the configured key: %v", err)
	}
	// Algorithm confusion: an HS256 token signed with anything must not pass an RS256 verifier.
	if _, err := rv.Verify(good); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("HS256 token accepted by the RS256 verifier: %v", err)
	}
	if _, err := api.NewVerifier(api.AuthConfig{}); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatal("a verifier without key material must be refused")
	}
}

// TestVerifierClaims: issuer and audience are enforced when configured, and
// a tenant token whose claims the service could not record in its own
// audit events (no subject, an e-mail that is not a bare address, an
// oversized or control-laden reason) is a 401 naming the claim, never a
// 500 later.
func TestVerifierClaims(t *testing.T) {
	secret := []byte("dev-secret")
	now := time.Now()
	v, err := api.NewVerifier(api.AuthConfig{Secret: secret, Issuer: api.Issuer, Audience: api.Audience})
	if err != nil {
		t.Fatal(err)
	}
	admin := audit.Principal{UserID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "a@x.example", Role: audit.RoleAdmin, TenantID: tenantA}
	sign := func(mut func(*api.Claims)) string {
		c := api.Claims{Role: admin.Role, Tenant: admin.TenantID, Email: admin.Email, RegisteredClaims: jwt.RegisteredClaims{
			Issuer: api.Issuer, Audience: jwt.ClaimStrings{api.Audience}, Subject: admin.UserID,
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}
		mut(&c)
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	dev, _ := api.MintToken(secret, admin, time.Hour, now)
	if p, err := v.Verify(dev); err != nil || p != admin {
		t.Fatalf("a development token must pass the default issuer and audience: %+v %v", p, err)
	}
	if p, err := v.Verify(sign(func(c *api.Claims) { c.Audience = jwt.ClaimStrings{"other", api.Audience} })); err != nil || p != admin {
		t.Fatalf("an audience list that includes ours is accepted: %v", err)
	}
	long := make([]byte, audit.MaxEmailBytes)
	for i := range long {
		long[i] = 'a'
	}
	for name, tc := range map[string]struct {
		mut   func(*api.Claims)
		field string // the claim the answer must name ("" for iss/aud)
	}{
		"wrong issuer":       {func(c *api.Claims) { c.Issuer = "evil" }, ""},
		"no issuer":          {func(c *api.Claims) { c.Issuer = "" }, ""},
		"wrong audience":     {func(c *api.Claims) { c.Audience = jwt.ClaimStrings{"billing"} }, ""},
		"no audience":        {func(c *api.Claims) { c.Audience = nil }, ""},
		"no subject":         {func(c *api.Claims) { c.Subject = "" }, "sub"},
		"subject not a UUID": {func(c *api.Claims) { c.Subject = "alice" }, "sub"},
		"no e-mail":          {func(c *api.Claims) { c.Email = "" }, "email"},
		"e-mail a bare name": {func(c *api.Claims) { c.Email = "ops" }, "email"},
		"e-mail with a name": {func(c *api.Claims) { c.Email = "Ops <ops@x.example>" }, "email"},
		"e-mail over 254":    {func(c *api.Claims) { c.Email = string(long) + "@x.example" }, "email"},
		"e-mail with NUL":    {func(c *api.Claims) { c.Email = "o\x00ps@x.example" }, "email"},
		"reason too long": {func(c *api.Claims) {
			c.Role = audit.RoleSuperadmin
			c.Reason = string(long) + string(long) + string(long) + string(long) + string(long)
		}, "reason"},
		"reason with newline": {func(c *api.Claims) { c.Role = audit.RoleSuperadmin; c.Reason = "CS-1\nforged" }, "reason"},
		"tenant not a UUID":   {func(c *api.Claims) { c.Tenant = "not-a-uuid" }, "tenant"},
	} {
		_, err := v.Verify(sign(tc.mut))
		if audit.ErrorCode(err) != audit.EUNAUTHORIZED {
			t.Errorf("%s: got %v, want unauthorized", name, err)
			continue
		}
		if tc.field != "" {
			fs := audit.ErrorFields(err)
			if len(fs) != 1 || fs[0].Field != tc.field {
				t.Errorf("%s: fields %+v, want one naming %q", name, fs, tc.field)
			}
		}
	}
	// Unset issuer and audience are not checked.
	open, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	if _, err := open.Verify(sign(func(c *api.Claims) { c.Issuer, c.Audience = "anyone", nil })); err != nil {
		t.Fatalf("without configured issuer/audience any is accepted: %v", err)
	}
	// Ingest credentials name no user.
	ing, _ := api.MintToken(secret, audit.Principal{Role: audit.RoleIngest}, time.Hour, now)
	if _, err := v.Verify(ing); err != nil {
		t.Fatalf("ingest token: %v", err)
	}
}
