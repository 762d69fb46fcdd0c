// Package hookrecv is a webhook receiver for tests, written as
// docs/streams.md tells a tenant to write one: it checks each request's
// signature (webhook.Verify, within webhook.DefaultWindow), keeps each
// batch's events, and answers 200; queued answers (Fail) are given
// instead, before it takes batches again.
package hookrecv

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// Server is the receiver.
type Server struct {
	*httptest.Server
	secret []byte

	mu   sync.Mutex
	held []streaming.Entry
	fail []func(w http.ResponseWriter)
}

// Start starts a TLS receiver whose signing key is secret.
func Start(secret string) *Server {
	s := &Server{secret: []byte(secret)}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.take))
	return s
}

func (s *Server) take(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := webhook.Verify(s.secret, r.Header.Get(webhook.TimestampHeader), r.Header.Get(webhook.SignatureHeader), body, time.Now(), webhook.DefaultWindow); err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.fail) > 0 {
		answer := s.fail[0]
		s.fail = s.fail[1:]
		answer(w)
		return
	}
	var b streaming.Batch
	if err := json.Unmarshal(body, &b); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.held = append(s.held, b.Events...)
	w.WriteHeader(http.StatusOK)
}

// Fail queues answers given to the next signed requests instead of
// taking them.
func (s *Server) Fail(answers ...func(w http.ResponseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, answers...)
}

// Held returns the events taken so far, in order of arrival.
func (s *Server) Held() []streaming.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]streaming.Entry(nil), s.held...)
}
