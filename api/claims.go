package api

import (
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
)

// ClaimNames are the names of the claims the service reads the caller
// from, for identity providers that do not put them at the top of the
// token under these names (AUDITLOG_JWT_CLAIM_*). A name is looked up as
// it is first (namespaced claims such as "https://platform.example/tenant"
// hold dots), then as a path of members separated by dots ("ext.tenant":
// the member tenant of the object ext). An empty name is the default.
type ClaimNames struct {
	Tenant, Role, Email, Reason string
}

// The default claim names: what `auditlog token` mints.
const (
	ClaimTenant = "tenant"
	ClaimRole   = "role"
	ClaimEmail  = "email"
	ClaimReason = "reason"
)

func (n ClaimNames) withDefaults() ClaimNames {
	n.Tenant = orDefault(n.Tenant, ClaimTenant)
	n.Role = orDefault(n.Role, ClaimRole)
	n.Email = orDefault(n.Email, ClaimEmail)
	n.Reason = orDefault(n.Reason, ClaimReason)
	return n
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// principal reads the caller from verified claims c by the names n.
func (n ClaimNames) principal(c jwt.MapClaims) audit.Principal {
	sub, _ := c.GetSubject()
	return audit.Principal{
		UserID:   strings.ToLower(sub),
		Email:    claimString(c, n.Email),
		Role:     claimRole(c, n.Role),
		TenantID: audit.NormalizeTenantID(claimString(c, n.Tenant)),
		Reason:   strings.TrimSpace(claimString(c, n.Reason)),
	}
}

// claim is the value of name in c: the member of that name, else the
// path its dots separate; nil when there is none.
func claim(c jwt.MapClaims, name string) any {
	if v, ok := c[name]; ok {
		return v
	}
	var cur any = map[string]any(c)
	for _, part := range strings.Split(name, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = obj[part]; !ok {
			return nil
		}
	}
	return cur
}

// claimString is a claim that is a string; "" otherwise.
func claimString(c jwt.MapClaims, name string) string {
	s, _ := claim(c, name).(string)
	return s
}

// claimRole is the role claim: a string, or a list (as providers that
// give a user several roles write it), of which the first role this
// service knows is taken; "" when there is none.
func claimRole(c jwt.MapClaims, name string) string {
	switch v := claim(c, name).(type) {
	case string:
		return v
	case []any:
		for _, r := range v {
			if s, ok := r.(string); ok && knownRole(s) {
				return s
			}
		}
	}
	return ""
}

func knownRole(r string) bool {
	switch r {
	case audit.RoleAdmin, audit.RoleSuperadmin, audit.RoleIngest, hold.Role:
		return true
	}
	return false
}
