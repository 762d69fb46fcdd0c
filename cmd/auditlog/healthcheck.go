package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// runHealthcheck asks a running serve or index whether it is ready
// (GET /readyz) and exits 0 when it is, 1 otherwise: the healthcheck of the
// container image, which has no curl. The address is AUDITLOG_HTTP_ADDR,
// the one the server listens on; a wildcard host is asked on loopback.
func runHealthcheck(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var addr, path string
	var timeout time.Duration
	b := newBinder("auditlog healthcheck", getenv, stderr)
	b.str(&addr, "http-addr", "AUDITLOG_HTTP_ADDR", "127.0.0.1:8080", "address the server listens on")
	var tlsCert string
	b.str(&tlsCert, "http-tls-cert", "AUDITLOG_HTTP_TLS_CERT", "", "set when the server serves HTTPS: the check asks over TLS")
	b.fs.StringVar(&path, "path", "/readyz", "path to ask: /readyz (ready to serve) or /healthz (alive)")
	b.fs.DurationVar(&timeout, "timeout", 5*time.Second, "time limit of the check")
	b.describe(stdout, "Usage: auditlog healthcheck [--path /readyz|/healthz] [--timeout 5s]\n\n"+
		"Asks the server at AUDITLOG_HTTP_ADDR for /readyz (or /healthz) and exits 0 when it answers 200: the\n"+
		"container image's health check, which has no curl.\n")
	if err := b.parse(args); err != nil {
		return err
	}
	if path != "/readyz" && path != "/healthz" {
		return fmt.Errorf("--path %q: want /readyz or /healthz", path)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("AUDITLOG_HTTP_ADDR=%q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	scheme, client := "http", http.DefaultClient
	if tlsCert != "" {
		// The server's own process asked on loopback, whose name the
		// certificate does not carry: the check proves it answers, sends
		// no credential, and so does not verify the certificate.
		scheme = "https"
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a liveness check of the local process
	}
	u := scheme + "://" + net.JoinHostPort(host, port) + path
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return errors.New(u + ": " + res.Status + " " + string(body))
	}
	fmt.Fprintf(stdout, "%s: %s\n", u, res.Status)
	return nil
}
