package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// selfSigned writes a certificate for 127.0.0.1 with serial and its key
// into certFile and keyFile, and returns the certificate.
func selfSigned(t *testing.T, certFile, keyFile string, serial int64) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "auditlog test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	// The key first: a reload between the two writes sees the old
	// certificate with the new key, which does not load, and keeps the
	// certificate in use.
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c
}

// TestServeOverTLS (issue 57): with AUDITLOG_HTTP_TLS_CERT and _KEY, serve
// speaks HTTPS on its address (TLS 1.2 or later; plain HTTP gets no
// answer of the API), the healthcheck asks over TLS, a renewed
// certificate written over the files is served without a restart, and a
// half or unreadable configuration stops the start naming the variables.
func TestServeOverTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := selfSigned(t, certFile, keyFile, 1)
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_LOG_LEVEL": "warn", "AUDITLOG_HTTP_TLS_CERT": certFile, "AUDITLOG_HTTP_TLS_KEY": keyFile}
	m := startMain(t, "serve", vars)

	served := func(trusted *x509.Certificate) (*http.Response, error) {
		pool := x509.NewCertPool()
		pool.AddCert(trusted)
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		res, err := c.Get("https://" + m.Addr() + "/readyz")
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return res, err
	}
	testenv.Eventually(t, time.Minute, func() error {
		res, err := served(first)
		if err != nil {
			return err
		}
		if res.StatusCode != 200 || res.TLS == nil || res.TLS.Version < tls.VersionTLS12 {
			return fmt.Errorf("/readyz over TLS: %d %+v", res.StatusCode, res.TLS)
		}
		return nil
	})
	if res, err := http.Get("http://" + m.Addr() + "/readyz"); err == nil {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Fatalf("plain HTTP answered 200: %s", body)
		}
	}
	var out strings.Builder
	hc := map[string]string{"AUDITLOG_HTTP_ADDR": m.Addr(), "AUDITLOG_HTTP_TLS_CERT": certFile}
	if code := run([]string{"healthcheck"}, env(hc), &out, &out); code != 0 || !strings.Contains(out.String(), "https://") {
		t.Fatalf("healthcheck over TLS: exit %d\n%s", code, out.String())
	}

	// A renewed certificate: served within the reload interval (10 s).
	time.Sleep(10 * time.Millisecond) // a later modification time on coarse clocks
	renewed := selfSigned(t, certFile, keyFile, 2)
	testenv.Eventually(t, 30*time.Second, func() error {
		res, err := served(renewed)
		if err != nil {
			return err
		}
		if got := res.TLS.PeerCertificates[0].SerialNumber.Int64(); got != 2 {
			return fmt.Errorf("serial %d served", got)
		}
		return nil
	})

	for name, bad := range map[string]map[string]string{
		"only the certificate": {"AUDITLOG_HTTP_TLS_KEY": ""},
		"a key of another certificate": {"AUDITLOG_HTTP_TLS_KEY": func() string {
			k := filepath.Join(t.TempDir(), "other.key")
			selfSigned(t, filepath.Join(t.TempDir(), "other.crt"), k, 3)
			return k
		}()},
		"no such file": {"AUDITLOG_HTTP_TLS_CERT": filepath.Join(dir, "missing.crt")},
	} {
		v := map[string]string{}
		for k, x := range vars {
			v[k] = x
		}
		for k, x := range bad {
			v[k] = x
		}
		var errOut strings.Builder
		if code := run([]string{"serve"}, env(v), io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), "AUDITLOG_HTTP_TLS_") {
			t.Errorf("%s: exit %d, want 1 naming the variables\n%s", name, code, errOut.String())
		}
	}
}

// TestABrokenRenewalKeepsTheCertificate: files that change but do not
// load as a pair (a renewal half written) leave the certificate in use
// served; the next good pair is taken.
func TestABrokenRenewalKeepsTheCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	selfSigned(t, certFile, keyFile, 1)
	r, err := newCertReloader(certFile, keyFile, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	r.interval = 0
	serial := func() int64 {
		c, err := r.getCertificate(nil)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := x509.ParseCertificate(c.Certificate[0])
		return x.SerialNumber.Int64()
	}
	future := time.Now().Add(time.Minute)
	if err := os.WriteFile(keyFile, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(keyFile, future, future)
	if s := serial(); s != 1 {
		t.Fatalf("a broken renewal: serial %d served, want the certificate in use (1)", s)
	}
	selfSigned(t, certFile, keyFile, 2)
	later := future.Add(time.Minute)
	os.Chtimes(certFile, later, later)
	if s := serial(); s != 2 {
		t.Fatalf("the good pair after it: serial %d served, want 2", s)
	}
}
