package api_test

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestClaimNames (issue 57): the caller is read from the claims
// AUDITLOG_JWT_CLAIM_* name: a namespaced name with dots as it is, a path
// into an object (Ory Hydra's ext), a role given as a list (the first
// role the service knows); the defaults are what auditlog token mints.
func TestClaimNames(t *testing.T) {
	const tenant, sub = "7c9e6679-7425-40de-944b-e07fc1f90ae7", "0b6f3c3e-7c43-4c55-9a4f-2f0f6d7f5a11"
	sign := func(claims jwt.MapClaims) string {
		claims["sub"], claims["exp"] = sub, time.Now().Add(time.Hour).Unix()
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := audit.Principal{UserID: sub, Email: "ines@acme.example", Role: audit.RoleSuperadmin, TenantID: tenant, Reason: "CS-12"}
	cases := map[string]struct {
		names  api.ClaimNames
		claims jwt.MapClaims
	}{
		"the defaults": {api.ClaimNames{}, jwt.MapClaims{"tenant": tenant, "role": "superadmin", "email": "ines@acme.example", "reason": "CS-12"}},
		"namespaced names with dots": {
			api.ClaimNames{Tenant: "https://platform.example/tenant", Role: "https://platform.example/role"},
			jwt.MapClaims{"https://platform.example/tenant": tenant, "https://platform.example/role": "superadmin", "email": "ines@acme.example", "reason": "CS-12"},
		},
		"paths into an object": {
			api.ClaimNames{Tenant: "ext.tenant", Role: "ext.role", Email: "ext.mail", Reason: "ext.why"},
			jwt.MapClaims{"ext": map[string]any{"tenant": tenant, "role": "superadmin", "mail": "ines@acme.example", "why": "CS-12"}, "tenant": "other"},
		},
		"a list of roles": {
			api.ClaimNames{Role: "realm_access.roles"},
			jwt.MapClaims{"realm_access": map[string]any{"roles": []any{"offline_access", "superadmin", "admin"}}, "tenant": tenant, "email": "ines@acme.example", "reason": "CS-12"},
		},
	}
	for name, c := range cases {
		v, err := api.NewVerifier(api.AuthConfig{Secret: []byte("k"), Claims: c.names})
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Verify(sign(c.claims))
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", name, got, err, want)
		}
	}
	// A claim of the wrong shape is as absent: the token is refused,
	// naming it.
	v, _ := api.NewVerifier(api.AuthConfig{Secret: []byte("k"), Claims: api.ClaimNames{Tenant: "ext.tenant"}})
	if _, err := v.Verify(sign(jwt.MapClaims{"ext": "not an object", "role": "admin", "email": "ines@acme.example"})); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("no tenant at the path: %v, want unauthorized", err)
	}
}
