package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// Tokens from a platform's identity provider (issue 57): its keys are
// read from its JWKS document, named directly (AUDITLOG_JWT_JWKS_URL) or
// by its OpenID Connect discovery document (AUDITLOG_JWT_OIDC_ISSUER,
// whose issuer tokens must then carry as iss). MicahParks/keyfunc keeps
// the keys: it reads the JWKS every AUDITLOG_JWT_JWKS_REFRESH, and at
// once when a token names a kid it does not know (a rotation), at most
// once a minute, so that forged kids cannot make the service hammer the
// provider. A key is used only with the algorithm its JWK names.

// identityProvider returns the keyfunc of the configured provider and,
// for OpenID Connect, its issuer. The discovery document is read once,
// at start: an unreachable or inconsistent one is a start error naming
// its variable. The JWKS itself may be unreachable at start (tokens are
// then refused until it is read; the refresh retries).
func (m *Main) identityProvider() (jwt.Keyfunc, string, error) {
	cfg := m.Config
	jwksURL, issuer := cfg.JWKSURL, ""
	ctx, cancel := context.WithCancel(context.Background())
	m.onClose(func(context.Context) error { cancel(); return nil })
	if cfg.OIDCIssuer != "" {
		var err error
		if jwksURL, err = discoverJWKS(ctx, cfg.OIDCIssuer); err != nil {
			return nil, "", fmt.Errorf("AUDITLOG_JWT_OIDC_ISSUER: %w", err)
		}
		issuer = cfg.OIDCIssuer
	}
	noError := true
	k, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{jwksURL}, keyfunc.Override{
		HTTPTimeout: 10 * time.Second, NoErrorReturnFirstHTTPReq: &noError, RefreshInterval: cfg.JWKSRefresh,
		RefreshUnknownKID: rate.NewLimiter(rate.Every(time.Minute), 1), RateLimitWaitMax: time.Second,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(_ context.Context, err error) {
				m.Logger.Warn("could not read the identity provider's keys; tokens signed with keys not yet read are refused", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, "", fmt.Errorf("the JWKS %s: %w", jwksURL, err)
	}
	m.Logger.Info("bearer tokens are verified with the identity provider's keys", slog.String("jwks", jwksURL), slog.String("issuer", issuer))
	return k.Keyfunc, issuer, nil
}

// discoverJWKS reads issuer's OpenID Connect discovery document and
// returns its jwks_uri. The document must name the same issuer (OpenID
// Connect Discovery 1.0, section 4.3).
func discoverJWKS(ctx context.Context, issuer string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	u := strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", u, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("reading %s: %s", u, res.Status)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, res.Body, 1<<20)).Decode(&doc); err != nil {
		return "", fmt.Errorf("reading %s: %w", u, err)
	}
	switch {
	case doc.Issuer != issuer:
		return "", fmt.Errorf("%s names the issuer %q, not %q", u, doc.Issuer, issuer)
	case doc.JWKSURI == "":
		return "", fmt.Errorf("%s has no jwks_uri", u)
	}
	return doc.JWKSURI, nil
}
