package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestThePortAnswersWhileTheDemoSeeds (issue 42): serve listens before it
// seeds the demo; meanwhile a request gets a fast 503 "starting" with
// Retry-After (not a hang until the seed is done), /healthz 200, and once
// Run returns the API answers.
func TestThePortAnswersWhileTheDemoSeeds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	seed := "40000" // long enough to be seen starting
	if raceDetector {
		seed = "8000" // as long, five times slower
	}
	cfg, _, err := parseServerConfig("serve", nil, env(map[string]string{"AUDITLOG_HTTP_ADDR": addr, "AUDITLOG_DATA_DIR": filepath.Join(t.TempDir(), "data"),
		"AUDITLOG_SEED": seed, "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_PERIODIC_EXPORT": "false"}), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain("serve", cfg, newLogger(&cfg, io.Discard))
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	t.Cleanup(func() { <-done; _ = m.Close() })
	client := &http.Client{Timeout: 5 * time.Second}
	get := func(path string) (*http.Response, string, time.Duration) {
		t0 := time.Now()
		res, err := client.Get("http://" + addr + path)
		if err != nil {
			return nil, err.Error(), time.Since(t0)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body), time.Since(t0)
	}
	starting := 0
	// A safety bound, not a timing assertion: the seed takes seconds.
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			if err != nil {
				t.Fatal(err)
			}
			if starting == 0 {
				t.Fatal("the seed ended before any request was answered: no request saw the service starting")
			}
			if res, body, _ := get("/api/audit-logs"); res == nil || res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("after the start: %v %s, want the API's 401", res, body)
			}
			return
		default:
		}
		res, body, took := get("/api/audit-logs")
		if res == nil {
			continue // not listening yet
		}
		if res.StatusCode == http.StatusUnauthorized {
			continue // started between the check and the request
		}
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, `"code":"starting"`) ||
			res.Header.Get("Content-Type") != "application/problem+json" || took > time.Second {
			t.Fatalf("while starting: %d %v %s in %s", res.StatusCode, res.Header, body, took)
		}
		if h, _, _ := get("/healthz"); h == nil || h.StatusCode != 200 {
			t.Fatalf("/healthz while starting: %v", h)
		}
		starting++
	}
	t.Fatal("serve did not start within three minutes")
}
