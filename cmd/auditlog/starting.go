package main

import (
	"net/http"
	"sync/atomic"
)

// handlerSwitch is the HTTP server's handler: until the service is wired
// (the demo seeded, the store opened), every request gets a fast 503 that
// says it is starting, instead of waiting in the listen queue: serve
// listens first (export e-mails need its address), and a curl pasted
// while the demo seeds hung for its whole length (issue 42). /healthz
// answers 200 meanwhile (the process is alive), /readyz 503.
type handlerSwitch struct {
	h atomic.Pointer[http.Handler]
}

func (s *handlerSwitch) set(h http.Handler) { s.h.Store(&h) }

func (s *handlerSwitch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := s.h.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/healthz" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"alive","starting":true}`))
		return
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Retry-After", "2")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`{"type":"about:blank","title":"starting","status":503,"code":"starting",` +
		`"detail":"the service is starting (opening the store, seeding the demo events); retry in a moment"}`))
}
