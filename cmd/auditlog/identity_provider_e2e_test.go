package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// An identity provider as a platform runs one: an OpenID Connect
// discovery document and a JWKS, written here by hand from RFC 7517/7518
// (not by the library the service reads them with), whose keys the test
// rotates.
type idp struct {
	srv  *httptest.Server
	jwks atomic.Value // []byte
}

func startIdP(t *testing.T) *idp {
	p := &idp{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]string{"issuer": p.srv.URL, "jwks_uri": p.srv.URL + "/jwks", "id_token_signing_alg_values_supported": "RS256"})
		case "/jwks":
			w.Write(p.jwks.Load().([]byte))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// publish serves these keys, by kid.
func (p *idp) publish(keys map[string]crypto.PublicKey) {
	var out []map[string]string
	b64 := base64.RawURLEncoding.EncodeToString
	for kid, k := range keys {
		switch k := k.(type) {
		case *rsa.PublicKey:
			out = append(out, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
				"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
		case *ecdsa.PublicKey:
			pt, _ := k.ECDH()
			raw := pt.Bytes() // 0x04 || x || y
			out = append(out, map[string]string{"kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256",
				"x": b64(raw[1:33]), "y": b64(raw[33:])})
		}
	}
	b, _ := json.Marshal(map[string]any{"keys": out})
	p.jwks.Store(b)
}

// token is a tenant admin's token of the provider (iss), signed with key
// under kid by method.
func (p *idp) token(t *testing.T, method jwt.SigningMethod, kid string, key any, iss string) string {
	tok := jwt.NewWithClaims(method, jwt.MapClaims{"iss": iss, "aud": "auditlog", "sub": "0b6f3c3e-7c43-4c55-9a4f-2f0f6d7f5a11",
		"email": "ines@acme.example", "role": "admin", "tenant": demoTenant, "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTokensFromAnIdentityProvider (issue 57): serve, configured with an
// OpenID Connect issuer only, finds the JWKS by discovery and accepts its
// users' tokens; a key rotated in is used at the first token that names
// it; a token of an unpublished key, of another issuer, of an algorithm
// not accepted (HS256 keyed with the public key: algorithm confusion), or
// whose signature is not its kid's, is a 401 that says which.
func TestTokensFromAnIdentityProvider(t *testing.T) {
	p := startIdP(t)
	a, _ := rsa.GenerateKey(rand.Reader, 2048)
	b, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	c, _ := rsa.GenerateKey(rand.Reader, 2048)
	p.publish(map[string]crypto.PublicKey{"a": &a.PublicKey})
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(),
		"AUDITLOG_JWT_OIDC_ISSUER": p.srv.URL, "AUDITLOG_CURSOR_SECRET": "cursor-secret", "AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "50"})
	cl := client{t, "http://" + m.Addr()}
	get := func(tok string) (int, string) {
		code, body := cl.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
		return code, string(body)
	}
	if code, body := get(p.token(t, jwt.SigningMethodRS256, "a", a, p.srv.URL)); code != 200 {
		t.Fatalf("a token of the provider's key: %d %s", code, body)
	}
	p.publish(map[string]crypto.PublicKey{"a": &a.PublicKey, "b": &b.PublicKey}) // the provider rotates in an EC key
	if code, body := get(p.token(t, jwt.SigningMethodES256, "b", b, p.srv.URL)); code != 200 {
		t.Fatalf("a token of the key rotated in: %d %s", code, body)
	}
	pubDER := x509PublicDER(t, &a.PublicKey)
	for name, c := range map[string]struct {
		tok, says string
	}{
		"a key the provider never published":     {p.token(t, jwt.SigningMethodRS256, "c", c, p.srv.URL), "JWKS"},
		"another issuer":                         {p.token(t, jwt.SigningMethodRS256, "a", a, "https://other.example"), "issuer"},
		"HS256 keyed with the public key":        {p.token(t, jwt.SigningMethodHS256, "a", pubDER, p.srv.URL), "algorithm"},
		"signed with another key than its kid's": {p.token(t, jwt.SigningMethodRS256, "a", c, p.srv.URL), "signature"},
	} {
		code, body := get(c.tok)
		if code != 401 || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want a 401 that says %q", name, code, body, c.says)
		}
	}
}

func x509PublicDER(t *testing.T, k *rsa.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
