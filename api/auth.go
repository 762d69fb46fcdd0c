package api

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
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

// The iss and aud claims of the tokens this service mints, and the
// values a verifier checks by default (AUDITLOG_JWT_ISSUER and
// AUDITLOG_JWT_AUDIENCE), so a development token passes the default
// configuration as it is.
const (
	Issuer   = "auditlog"
	Audience = "auditlog"
)

// MintConfig signs development tokens: HS256 with Secret, carrying
// Issuer and Audience (each left out when empty).
type MintConfig struct {
	Secret   []byte
	Issuer   string
	Audience string
}

// MintToken signs a development token with HS256 and the default issuer
// and audience. `auditlog token` uses Mint with the server's settings.
func MintToken(secret []byte, p audit.Principal, ttl time.Duration, now time.Time) (string, error) {
	return Mint(MintConfig{Secret: secret, Issuer: Issuer, Audience: Audience}, p, ttl, now)
}

// Mint signs a development token. It returns EINVALID when no secret is
// configured, or for a tenant or user id that is not a UUID.
func Mint(mc MintConfig, p audit.Principal, ttl time.Duration, now time.Time) (string, error) {
	if len(mc.Secret) == 0 {
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
			Issuer:    mc.Issuer,
			Subject:   p.UserID,
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
	}
	if mc.Audience != "" {
		c.Audience = jwt.ClaimStrings{mc.Audience}
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(mc.Secret)
}

// AuthConfig says how bearer tokens are verified: HS256 with Secret,
// RS256 with PublicKey, or with the keys of an identity provider's JWKS
// (Keys, JWKSAlgorithms). Exactly the configured algorithms are accepted,
// so alg=none and algorithm confusion are refused.
type AuthConfig struct {
	Secret    []byte
	PublicKey *rsa.PublicKey
	// Keys finds a token's key by its kid among the identity provider's
	// (keyfunc over a JWKS that it refreshes: cmd/auditlog/jwks.go).
	Keys jwt.Keyfunc
	// Leeway tolerates clock skew on exp and nbf.
	Leeway time.Duration
	// Issuer and Audience, when set, must match the token's iss and one
	// of its aud values; when empty that claim is not checked.
	Issuer   string
	Audience string
	// Claims names the claims the caller is read from (the defaults:
	// tenant, role, email, reason).
	Claims ClaimNames
}

// Verifier checks bearer tokens.
type Verifier struct {
	cfg     AuthConfig
	parser  *jwt.Parser
	methods []string
}

// NewVerifier returns a verifier, or EINVALID when neither a secret nor a
// public key is configured.
func NewVerifier(cfg AuthConfig) (*Verifier, error) {
	var methods []string
	switch {
	case cfg.Keys != nil:
		methods = JWKSAlgorithms
	case cfg.PublicKey != nil:
		methods = []string{jwt.SigningMethodRS256.Alg()}
	case len(cfg.Secret) > 0:
		methods = []string{jwt.SigningMethodHS256.Alg()}
	default:
		return nil, audit.Errorf(audit.EINVALID, "auth: configure AUDITLOG_JWT_SECRET (HS256), a public key (RS256) or a JWKS")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods(methods), jwt.WithLeeway(cfg.Leeway),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt()}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	cfg.Claims = cfg.Claims.withDefaults()
	return &Verifier{cfg: cfg, parser: jwt.NewParser(opts...), methods: methods}, nil
}

// Verify parses a bearer token and returns the principal. It returns
// EUNAUTHORIZED for a missing, malformed, expired, unsigned or badly
// signed token, a wrong issuer or audience, and a tenant token whose
// claims the service could not record in its own audit events (see
// checkRecordable); EFORBIDDEN for a role the service does not know.
func (v *Verifier) Verify(token string) (audit.Principal, error) {
	p, err := v.verifyClaims(token)
	if err != nil {
		return p, err
	}
	switch p.Role {
	case audit.RoleAdmin, audit.RoleSuperadmin, hold.Role:
		if err := checkRecordable(p); err != nil {
			return audit.Principal{}, err
		}
	case audit.RoleIngest:
	default:
		return audit.Principal{}, audit.Errorf(audit.EFORBIDDEN, "role %q may not use this service", p.Role)
	}
	return p, nil
}

// verifyClaims checks the token's signature, expiry, issuer and audience
// and returns its principal, whatever its role.
func (v *Verifier) verifyClaims(token string) (audit.Principal, error) {
	if token == "" {
		return audit.Principal{}, audit.Errorf(audit.EUNAUTHORIZED, "missing bearer token")
	}
	c := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, c, func(t *jwt.Token) (any, error) {
		switch {
		case v.cfg.Keys != nil:
			return v.cfg.Keys(t)
		case v.cfg.PublicKey != nil:
			return v.cfg.PublicKey, nil
		}
		return v.cfg.Secret, nil
	})
	if err != nil {
		return audit.Principal{}, v.tokenError(err)
	}
	return v.cfg.Claims.principal(c), nil
}

// JWKSAlgorithms are the signing algorithms accepted from a JWKS: the
// asymmetric ones identity providers sign with. A key is used only with
// the algorithm its JWK names, when it names one.
var JWKSAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// tokenError names what is wrong with a token, so that its holder can
// tell an expired token from one signed with another key (the commonest
// mistake in development: a token minted against another data directory's
// secret). Nothing of the key is said.
func (v *Verifier) tokenError(err error) error {
	var msg string
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		msg = "token expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		msg = "token not valid yet (nbf or iat in the future: check the clocks)"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		msg = fmt.Sprintf("token issuer (iss) must be %q", v.cfg.Issuer)
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		msg = fmt.Sprintf("token audience (aud) must include %q", v.cfg.Audience)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		msg = "token has no expiry (exp)"
	case errors.Is(err, jwt.ErrTokenMalformed):
		msg = "malformed token (want three base64url parts: header.claims.signature)"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid) && strings.Contains(err.Error(), "signing method"):
		msg = fmt.Sprintf("token signed with an algorithm this service does not accept (accepted: %s)", strings.Join(v.methods, ", "))
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		msg = "token signature does not verify: it was signed with another " + v.keyName()
	case errors.Is(err, jwt.ErrTokenUnverifiable) && v.cfg.Keys != nil:
		msg = "no key of the identity provider's JWKS verifies the token (unknown kid, or a key not for this algorithm)"
	default:
		msg = "invalid token"
	}
	return audit.Wrap(audit.EUNAUTHORIZED, err, "%s", msg)
}

// keyName names the key tokens are verified with, for tokenError.
func (v *Verifier) keyName() string {
	switch {
	case v.cfg.Keys != nil:
		return "key than the identity provider's (AUDITLOG_JWT_JWKS_URL or AUDITLOG_JWT_OIDC_ISSUER)"
	case v.cfg.PublicKey != nil:
		return "key than AUDITLOG_JWT_PUBLIC_KEY's"
	}
	return "secret than AUDITLOG_JWT_SECRET (a token minted for another data directory or deployment?)"
}

// checkRecordable refuses a tenant token whose claims the service could
// not put into the audit events it records of the caller (exports,
// operator reads): every such action must name a user by id and e-mail.
// A token without a subject is refused rather than given an owner by
// another claim: export jobs belong to their creator's sub, and tokens
// without one would share them.
func checkRecordable(p audit.Principal) error {
	var fe []audit.FieldError
	if !audit.ValidUUID(p.TenantID) {
		fe = append(fe, audit.FieldError{Field: "tenant", Message: "must be the tenant's UUID"})
	}
	if !audit.ValidUUID(p.UserID) {
		fe = append(fe, audit.FieldError{Field: "sub", Message: "must be the user's UUID: every action is attributed to a user"})
	}
	if !audit.ValidEmail(p.Email) {
		fe = append(fe, audit.FieldError{Field: "email", Message: fmt.Sprintf("must be a bare e-mail address (name@domain) of at most %d bytes", audit.MaxEmailBytes)})
	}
	if !audit.RecordableReason(p.Reason) {
		fe = append(fe, audit.FieldError{Field: "reason", Message: fmt.Sprintf("must be text of at most %d bytes without control characters", audit.MaxReasonBytes)})
	}
	if len(fe) > 0 {
		return &audit.Error{Code: audit.EUNAUTHORIZED, Message: "the token's claims cannot be recorded in the audit log", Fields: fe}
	}
	return nil
}

// BearerToken extracts the token of an Authorization header.
func BearerToken(header string) string {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
