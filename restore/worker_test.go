package restore_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/restore"
	"github.com/auditlog/auditlog/sqlite"
)

const tenant = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"

var secret = []byte("0123456789abcdef0123456789abcdef")

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// request stores one pending restore request due now.
func request(t *testing.T, s restorejob.Store, key string) restorejob.Record {
	t.Helper()
	now := time.Now()
	r := restorejob.Record{Request: restorejob.Request{RequestID: restorejob.RequestID(tenant, key), TenantID: tenant,
		Resource: audit.Resource{Type: "ivr", ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"}, SourceEventID: "evt_audit_1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a",
		Version: restorejob.Before, State: json.RawMessage(`{"greeting":"hi"}`), ExpectedState: json.RawMessage(`{"greeting":"hello"}`),
		ExpectedEventID: "evt_audit_2d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a", OmittedFields: []string{},
		RequestedBy: audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "a@x.example", Role: "admin"}, CreatedAt: audit.NewTimestamp(now)},
		IdempotencyKey: key, Status: restorejob.Pending, NextAttemptAt: now}
	stored, created, err := s.CreateRestore(context.Background(), r)
	if err != nil || !created {
		t.Fatalf("%v %v", created, err)
	}
	return stored
}

// run starts a worker until the test ends.
func run(t *testing.T, s restorejob.Store, send restore.Sender) *restore.Worker {
	w := restore.NewWorker(s, send, slog.New(slog.NewTextHandler(io.Discard, nil)), prometheus.NewRegistry())
	w.Poll = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// waitDelivered waits until r is delivered, within timeout.
func waitDelivered(t *testing.T, s restorejob.Store, r restorejob.Record, timeout time.Duration) restorejob.Record {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, err := s.GetRestore(context.Background(), r.TenantID, r.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if got.DeliveredAt != nil {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("not delivered after %s: %+v", timeout, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// receiver is a real webhook receiver that verifies each signature and
// counts the requests it accepted by id.
type receiver struct {
	mu       sync.Mutex
	accepted map[string]int
	bad      []string
	down     atomic.Bool  // answers 503 while set
	refused  atomic.Int32 // 503 answers given
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if rc.down.Load() {
		rc.refused.Add(1)
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err := restorejob.VerifyBody(secret, body, r.Header.Get(restorejob.SignatureHeader), time.Now()); err != nil {
		rc.bad = append(rc.bad, err.Error())
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var req restorejob.Request
	if err := json.Unmarshal(body, &req); err != nil || r.Header.Get("Idempotency-Key") != req.RequestID {
		rc.bad = append(rc.bad, "undecodable or unnamed body")
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	rc.accepted[req.RequestID]++
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) count(id string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.accepted[id]
}

// TestWebhookDownThenBack: the webhook refuses connections, then answers
// 503, then comes back: the request arrives once, signed, and is marked
// delivered after its failed attempts.
func TestWebhookDownThenBack(t *testing.T) {
	s := openStore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // down: connections refused
	rc := &receiver{accepted: map[string]int{}}
	r := request(t, s, "k1")
	w := run(t, s, &restore.Webhook{URL: "http://" + addr + "/restores", Secret: secret, Client: &http.Client{Timeout: 5 * time.Second}})
	w.Notify()
	waitAttempts(t, s, r, 1)
	// Up, but answering 503.
	rc.down.Store(true)
	if ln, err = net.Listen("tcp", addr); err != nil {
		t.Fatalf("the port was taken meanwhile: %v", err)
	}
	srv := &http.Server{Handler: rc}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	// Wait for a 503 actually answered: the store's attempt count rises
	// when an attempt is claimed, before its answer comes back.
	for deadline := time.Now().Add(30 * time.Second); rc.refused.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no attempt reached the webhook while it answered 503")
		}
	}
	rc.down.Store(false)
	got := waitDelivered(t, s, r, 30*time.Second)
	if n := rc.count(r.RequestID); n != 1 || len(rc.bad) > 0 {
		t.Fatalf("received %d times (bad: %v), want once", n, rc.bad)
	}
	if got.Attempts < 3 || got.LastError != "" {
		t.Fatalf("record after delivery: %+v", got)
	}
	due, err := s.DueRestores(context.Background(), time.Now().Add(time.Hour), 10)
	if err != nil || len(due) != 0 {
		t.Fatalf("still due after delivery: %+v %v", due, err)
	}
}

// waitAttempts waits until r has had at least n failed attempts.
func waitAttempts(t *testing.T, s restorejob.Store, r restorejob.Record, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := s.GetRestore(context.Background(), r.TenantID, r.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if got.DeliveredAt != nil {
			t.Fatalf("delivered while the webhook was down: %+v", got)
		}
		if got.Attempts >= n && got.LastError != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts, want %d: %+v", got.Attempts, n, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTwoWorkersDeliverOnce: two replicas' workers on one store deliver
// each request once (the claim is compare-and-set).
func TestTwoWorkersDeliverOnce(t *testing.T) {
	s := openStore(t)
	rc := &receiver{accepted: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rc}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	var reqs []restorejob.Record
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		reqs = append(reqs, request(t, s, k))
	}
	hook := &restore.Webhook{URL: "http://" + ln.Addr().String(), Secret: secret}
	w1, w2 := run(t, s, hook), run(t, s, hook)
	w1.Notify()
	w2.Notify()
	for _, r := range reqs {
		waitDelivered(t, s, r, 30*time.Second)
		if n := rc.count(r.RequestID); n != 1 {
			t.Fatalf("request %s received %d times", r.RequestID, n)
		}
	}
}
