// Package splunkhec is a Splunk HTTP Event Collector for the tests,
// written from Splunk's HEC reference because no real one can be
// installed here (the OpenTelemetry Collector's splunkhecreceiver is not
// served by the module proxy, and no Splunk or Fluent Bit package is
// reachable): POST /services/collector/event with "Authorization: Splunk
// <token>", a body of concatenated JSON event objects, indexer
// acknowledgment on a channel (X-Splunk-Request-Channel, or ?channel=),
// POST /services/collector/ack, and HEC's documented status codes. It
// keeps what it indexed; Fail makes it answer an error first.
package splunkhec

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// Event is one event object of the HEC format.
type Event struct {
	Time       json.Number     `json:"time,omitempty"`
	Host       string          `json:"host,omitempty"`
	Source     string          `json:"source,omitempty"`
	Sourcetype string          `json:"sourcetype,omitempty"`
	Index      string          `json:"index,omitempty"`
	Event      json.RawMessage `json:"event"`
	Fields     map[string]any  `json:"fields,omitempty"`
}

// Server is the collector.
type Server struct {
	*httptest.Server
	Token string
	// Ack turns indexer acknowledgment on: a channel is then required,
	// and every accepted request answers an ackId, acknowledged once
	// AckAfter polls of it have been made.
	Ack      bool
	AckAfter int

	mu      sync.Mutex
	indexed []Event
	acks    map[string]map[int]int // channel → ackId → polls so far
	nextAck map[string]int
	fail    []func(w http.ResponseWriter) // answers to give before accepting again
}

// Start starts a TLS collector with token.
func Start(token string) *Server {
	s := &Server{Token: token, acks: map[string]map[int]int{}, nextAck: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /services/collector/event", s.event)
	mux.HandleFunc("POST /services/collector/ack", s.ack)
	s.Server = httptest.NewTLSServer(mux)
	return s
}

// reply writes HEC's JSON answer with its code.
func reply(w http.ResponseWriter, status, code int, text string, extra map[string]any) {
	body := map[string]any{"text": text, "code": code}
	for k, v := range extra {
		body[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// Fail queues an answer given to the next event request instead of
// indexing it: HEC's "server is busy" (503, code 9) with Retry-After, an
// internal error (500, code 8), or any writer.
func (s *Server) Fail(answers ...func(w http.ResponseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, answers...)
}

// Busy is HEC's 503 "Server is busy", with a Retry-After.
func Busy(retryAfter string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", retryAfter)
		reply(w, http.StatusServiceUnavailable, 9, "Server is busy", nil)
	}
}

// Internal is HEC's 500 "Internal server error".
func Internal(w http.ResponseWriter) {
	reply(w, http.StatusInternalServerError, 8, "Internal server error", nil)
}

// Indexed returns the events indexed so far.
func (s *Server) Indexed() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.indexed...)
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	switch {
	case auth == "":
		reply(w, http.StatusUnauthorized, 2, "Token is required", nil)
	case auth != "Splunk "+s.Token:
		reply(w, http.StatusForbidden, 4, "Invalid token", nil)
	default:
		return true
	}
	return false
}

func channelOf(r *http.Request) string {
	if c := r.Header.Get("X-Splunk-Request-Channel"); c != "" {
		return c
	}
	return r.URL.Query().Get("channel")
}

func (s *Server) event(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.fail) > 0 {
		f := s.fail[0]
		s.fail = s.fail[1:]
		f(w)
		return
	}
	channel := channelOf(r)
	if s.Ack && channel == "" {
		reply(w, http.StatusBadRequest, 10, "Data channel is missing", nil)
		return
	}
	events, code, text := decodeEvents(body)
	if code != 0 {
		reply(w, http.StatusBadRequest, code, text, nil)
		return
	}
	s.indexed = append(s.indexed, events...)
	if !s.Ack {
		reply(w, http.StatusOK, 0, "Success", nil)
		return
	}
	id := s.nextAck[channel]
	s.nextAck[channel] = id + 1
	if s.acks[channel] == nil {
		s.acks[channel] = map[int]int{}
	}
	s.acks[channel][id] = 0
	reply(w, http.StatusOK, 0, "Success", map[string]any{"ackId": id})
}

// decodeEvents reads a body of concatenated event objects, as HEC does:
// code 5 for none, 6 for one that is no JSON object, 12 and 13 for a
// missing or blank event field.
func decodeEvents(body []byte) ([]Event, int, string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var out []Event
	for dec.More() {
		var e Event
		if err := dec.Decode(&e); err != nil {
			return nil, 6, "Invalid data format"
		}
		switch {
		case e.Event == nil:
			return nil, 12, "Event field is required"
		case string(e.Event) == `""` || string(e.Event) == "null":
			return nil, 13, "Event field cannot be blank"
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, 5, "No data"
	}
	return out, 0, ""
}

func (s *Server) ack(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	if !s.Ack {
		reply(w, http.StatusBadRequest, 14, "ACK is disabled", nil)
		return
	}
	channel := channelOf(r)
	if channel == "" {
		reply(w, http.StatusBadRequest, 10, "Data channel is missing", nil)
		return
	}
	var q struct {
		Acks []int `json:"acks"`
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		reply(w, http.StatusBadRequest, 6, "Invalid data format", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	for _, id := range q.Acks {
		polls, known := s.acks[channel][id]
		done := known && polls >= s.AckAfter
		if known {
			s.acks[channel][id] = polls + 1
		}
		out[strconv.Itoa(id)] = done
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"acks": out})
}
