package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certReloader serves the certificate of two PEM files
// (AUDITLOG_HTTP_TLS_CERT and AUDITLOG_HTTP_TLS_KEY) and reads them again
// when either changes, so that a renewed certificate (cert-manager, an
// ACME client) is served without a restart. It looks at the files at most
// once every interval; a pair that does not load is logged and the
// certificate in use kept. crypto/tls has no reloading of its own, and
// this is the whole of it: not worth a dependency.
type certReloader struct {
	certFile, keyFile string
	interval          time.Duration
	log               *slog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	mod     time.Time // the later modification time of the pair in use
	checked time.Time
}

// newCertReloader loads the pair once; an error names the variables.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, interval: 10 * time.Second, log: log}
	mod, err := r.modTime()
	if err == nil {
		var c tls.Certificate
		if c, err = tls.LoadX509KeyPair(certFile, keyFile); err == nil {
			r.cert, r.mod, r.checked = &c, mod, time.Now()
			return r, nil
		}
	}
	return nil, fmt.Errorf("AUDITLOG_HTTP_TLS_CERT=%s, AUDITLOG_HTTP_TLS_KEY=%s: %w", certFile, keyFile, err)
}

func (r *certReloader) modTime() (time.Time, error) {
	var latest time.Time
	for _, f := range []string{r.certFile, r.keyFile} {
		st, err := os.Stat(f)
		if err != nil {
			return time.Time{}, err
		}
		if st.ModTime().After(latest) {
			latest = st.ModTime()
		}
	}
	return latest, nil
}

// getCertificate is tls.Config.GetCertificate.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.checked) < r.interval {
		return r.cert, nil
	}
	r.checked = time.Now()
	mod, err := r.modTime()
	if err != nil || !mod.After(r.mod) {
		return r.cert, nil
	}
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		r.log.Warn("the TLS certificate files changed but do not load; serving the previous certificate", "cert", r.certFile, "key", r.keyFile, "err", err)
		return r.cert, nil
	}
	r.cert, r.mod = &c, mod
	r.log.Info("TLS certificate reloaded", "cert", r.certFile)
	return r.cert, nil
}

// tlsConfig is the server's TLS configuration on the reloader: TLS 1.2
// at least, HTTP/2 offered.
func tlsConfig(r *certReloader) *tls.Config {
	return &tls.Config{GetCertificate: r.getCertificate, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
}
