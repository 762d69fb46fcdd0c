package api_test

import (
	"crypto/rand"
	"crypto/rsa"
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
	claims := api.Claims{Role: audit.RoleAdmin, Tenant: tenantA, RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}
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
	for name, tc := range map[string]struct {
		token, code string
	}{
		"missing":         {"", audit.EUNAUTHORIZED},
		"garbage":         {"abc.def.ghi", audit.EUNAUTHORIZED},
		"expired":         {expired, audit.EUNAUTHORIZED},
		"bad signature":   {otherKey, audit.EUNAUTHORIZED},
		"alg none":        {none, audit.EUNAUTHORIZED},
		"wrong algorithm": {rs256, audit.EUNAUTHORIZED},
		"no tenant":       {noTenant, audit.EUNAUTHORIZED},
		"no expiry":       {noExp, audit.EUNAUTHORIZED},
		"unknown role":    {unknownRole, audit.EFORBIDDEN},
	} {
		if _, err := v.Verify(tc.token); audit.ErrorCode(err) != tc.code {
			t.Errorf("%s: got %v, want %s", name, err, tc.code)
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
