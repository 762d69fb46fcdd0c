// Package ddintake is Datadog's logs intake for the tests, written from
// Datadog's reference of the Logs API v2 ("Send logs": POST /api/v2/logs)
// because no Datadog server can be installed here: the API key in the
// DD-API-KEY header (403 without the right one, as the intake answers), a
// JSON array of log items, gzip or plain (Content-Encoding), at most
// 1,000 items and 5 MB uncompressed a request (413 past 5 MB, 400 past
// 1,000 items), 202 with "{}" when accepted. It keeps what it took; Fail
// makes it answer an error first.
package ddintake

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// The intake's limits, from Datadog's reference.
const (
	MaxItems = 1000
	MaxBytes = 5 << 20 // uncompressed
)

// Server is the intake.
type Server struct {
	*httptest.Server
	APIKey string

	mu       sync.Mutex
	items    []map[string]any
	requests int
	fail     []func(w http.ResponseWriter)
}

// Start starts a TLS intake that takes apiKey.
func Start(apiKey string) *Server {
	s := &Server{APIKey: apiKey}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v2/logs", s.logs)
	s.Server = httptest.NewTLSServer(mux)
	return s
}

func reply(w http.ResponseWriter, status int, errs ...string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if len(errs) == 0 {
		_, _ = io.WriteString(w, "{}")
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": errs})
}

func (s *Server) logs(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("DD-API-KEY") != s.APIKey {
		reply(w, http.StatusForbidden, "Forbidden")
		return
	}
	if r.Header.Get("Content-Type") != "application/json" {
		reply(w, http.StatusBadRequest, "Content-Type must be application/json")
		return
	}
	s.mu.Lock()
	if len(s.fail) > 0 {
		f := s.fail[0]
		s.fail = s.fail[1:]
		s.mu.Unlock()
		f(w)
		return
	}
	s.mu.Unlock()
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			reply(w, http.StatusBadRequest, "bad gzip")
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(io.LimitReader(body, MaxBytes+1))
	switch {
	case err != nil:
		reply(w, http.StatusBadRequest, err.Error())
		return
	case len(raw) > MaxBytes:
		reply(w, http.StatusRequestEntityTooLarge, "Payload too large")
		return
	}
	var items []map[string]any
	if err := json.Unmarshal(raw, &items); err != nil {
		reply(w, http.StatusBadRequest, "the body is not a JSON array of log items")
		return
	}
	if len(items) > MaxItems {
		reply(w, http.StatusBadRequest, "too many log items")
		return
	}
	s.mu.Lock()
	s.items = append(s.items, items...)
	s.requests++
	s.mu.Unlock()
	reply(w, http.StatusAccepted)
}

// Fail queues answers given to the next requests instead of taking them.
func (s *Server) Fail(answers ...func(w http.ResponseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, answers...)
}

// TooMany is the intake's 429, with a Retry-After.
func TooMany(retryAfter string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", retryAfter)
		reply(w, http.StatusTooManyRequests, "Too many requests")
	}
}

// Items returns the log items taken so far, and in how many requests.
func (s *Server) Items() ([]map[string]any, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.items...), s.requests
}
