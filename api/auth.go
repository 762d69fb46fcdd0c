package api

import (
	"crypto/rsa"
	"errors"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/audit"
)

// Claims are the JWT claims the service reads: the standard subject and
// expiry, plus the caller's e-mail, role, tenant and (for superadmin) the
// declared reason.
type Claims struct {
	Email  string `json:"email,omitempty"`
	Role   string `json:"role"`
	Tenant string `json:"tenant,omitempty"`
	Reason string `json:"reason,omitempty"`
	jwt.RegisteredClaims
}

// Issuer is the iss claim of the tokens this service mints.
const Issuer = "auditlog"

// MintToken signs a development token with HS256. `auditlog token` uses
// it with the server's secret, so a newcomer can call the API at once.
func MintToken(secret []byte, p audit.Principal, ttl time.Duration, now time.Time) (string, error) {
	if len(secret) == 0 {
		return "", audit.Errorf(audit.EINVALID, "no JWT secret configured (AUDITLOG_JWT_SECRET)")
	}
	if p.Role != audit.RoleIngest && !audit.ValidUUID(p.TenantID) {
		return "", audit.Errorf(audit.EINVALID, "tenant must be a UUID")
	}
	if p.UserID != "" && !audit.ValidUUID(p.UserID) {
		return "", audit.Errorf(audit.EINVALID, "user must be a UUID")
	}
	c := Claims{
		Email: p.Email, Role: p.Role, Tenant: p.TenantID, Reason: p.Reason,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    Issuer,
			Subject:   p.UserID,
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
}

// AuthConfig says how bearer tokens are verified: HS256 with Secret, or
// RS256 with PublicKey. Exactly the configured algorithm is accepted, so
// alg=none and algorithm confusion are refused.
type AuthConfig struct {
	Secret    []byte
	PublicKey *rsa.PublicKey
	// Leeway tolerates clock skew on exp and nbf.
	Leeway time.Duration
}

// Verifier checks bearer tokens.
type Verifier struct {
	cfg    AuthConfig
	parser *jwt.Parser
}

// NewVerifier returns a verifier, or EINVALID when neither a secret nor a
// public key is configured.
func NewVerifier(cfg AuthConfig) (*Verifier, error) {
	var methods []string
	switch {
	case cfg.PublicKey != nil:
		methods = []string{jwt.SigningMethodRS256.Alg()}
	case len(cfg.Secret) > 0:
		methods = []string{jwt.SigningMethodHS256.Alg()}
	default:
		return nil, audit.Errorf(audit.EINVALID, "auth: configure AUDITLOG_JWT_SECRET (HS256) or a public key (RS256)")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	return &Verifier{cfg: cfg, parser: jwt.NewParser(jwt.WithValidMethods(methods), jwt.WithLeeway(cfg.Leeway),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt())}, nil
}

// Verify parses a bearer token and returns the principal. It returns
// EUNAUTHORIZED for a missing, malformed, expired, unsigned or badly
// signed token, and EFORBIDDEN for a role the service does not know.
func (v *Verifier) Verify(token string) (audit.Principal, error) {
	if token == "" {
		return audit.Principal{}, audit.Errorf(audit.EUNAUTHORIZED, "missing bearer token")
	}
	var c Claims
	_, err := v.parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		if v.cfg.PublicKey != nil {
			return v.cfg.PublicKey, nil
		}
		return v.cfg.Secret, nil
	})
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return audit.Principal{}, audit.Errorf(audit.EUNAUTHORIZED, "token expired")
	case err != nil:
		return audit.Principal{}, audit.Wrap(audit.EUNAUTHORIZED, err, "invalid token")
	}
	p := audit.Principal{UserID: c.Subject, Email: c.Email, Role: c.Role, TenantID: c.Tenant, Reason: strings.TrimSpace(c.Reason)}
	switch p.Role {
	case audit.RoleAdmin, audit.RoleSuperadmin:
		if !audit.ValidUUID(p.TenantID) {
			return audit.Principal{}, audit.Errorf(audit.EUNAUTHORIZED, "token has no valid tenant claim")
		}
	case audit.RoleIngest:
	default:
		return audit.Principal{}, audit.Errorf(audit.EFORBIDDEN, "role %q may not use this service", p.Role)
	}
	return p, nil
}

// BearerToken extracts the token of an Authorization header.
func BearerToken(header string) string {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
