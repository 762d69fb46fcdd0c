package main

import (
	"net"
	"strings"
	"testing"
)

// TestHealthcheckCommand: the image's healthcheck asks the real server on
// its own address (a wildcard host is asked on loopback) and fails, with
// the reason, when nothing answers.
func TestHealthcheckCommand(t *testing.T) {
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret"})
	_, port, _ := net.SplitHostPort(m.Addr())
	check := func(vars map[string]string, args ...string) (string, string, int) {
		var out, errb strings.Builder
		code := run(append([]string{"healthcheck"}, args...), env(vars), &out, &errb)
		return out.String(), errb.String(), code
	}
	for _, addr := range []string{m.Addr(), "0.0.0.0:" + port, ":" + port} {
		if out, errOut, code := check(map[string]string{"AUDITLOG_HTTP_ADDR": addr}); code != 0 || !strings.Contains(out, "/readyz: 200") {
			t.Errorf("healthcheck of %s: exit %d %q %q", addr, code, out, errOut)
		}
	}
	if out, _, code := check(map[string]string{"AUDITLOG_HTTP_ADDR": m.Addr()}, "--path", "/healthz"); code != 0 || !strings.Contains(out, "/healthz: 200") {
		t.Errorf("healthcheck of /healthz: exit %d %q", code, out)
	}
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	if _, errOut, code := check(map[string]string{"AUDITLOG_HTTP_ADDR": closed}); code != 1 || !strings.Contains(errOut, "connection refused") {
		t.Errorf("healthcheck of a closed port: exit %d %q", code, errOut)
	}
	if _, errOut, code := check(nil, "--path", "/metrics"); code == 0 || !strings.Contains(errOut, "--path") {
		t.Errorf("a bad --path: exit %d %q", code, errOut)
	}
	if out, _, code := check(nil, "--help"); code != 0 || !strings.Contains(out, "AUDITLOG_HTTP_ADDR") {
		t.Errorf("--help: exit %d %q", code, out)
	}
}
