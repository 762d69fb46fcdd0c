// Package azmonitor is Azure Monitor's Logs Ingestion API and Entra ID's
// token endpoint for the tests, written from Microsoft's references
// (the Logs Ingestion API, api-version 2023-01-01, and the OAuth 2.0
// client credentials grant of the Microsoft identity platform) because no
// Azure service can be run here. The token endpoint,
// POST /<tenant>/oauth2/v2.0/token, takes one application (client id and
// secret) of one tenant for the Monitor scope, answering 401
// invalid_client (AADSTS7000215) for a wrong secret and 400 for an
// unknown tenant or client, as Entra ID does. The ingestion endpoint,
// POST /dataCollectionRules/<rule>/streams/<stream>?api-version=2023-01-01,
// takes a bearer token it issued, gzip or plain JSON arrays of at most
// 1 MB whose rows have exactly the declared columns, and answers 204; 401
// for a token it did not issue or that expired, 404 for another rule,
// 400 for another stream or a row that is not the declaration's, 413 past
// 1 MB. It keeps the rows it took; Fail makes it answer an error first,
// Expire makes its tokens expire.
package azmonitor

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// Columns are the declared columns of the stream (docs/streams.md).
var Columns = []string{"AuditTenantId", "Event", "Format", "LeafIndex", "StreamId", "TimeGenerated"}

// Server is both endpoints.
type Server struct {
	*httptest.Server
	Tenant, ClientID, Secret, DCR, Stream string

	mu     sync.Mutex
	issued map[string]bool
	n      int
	rows   []map[string]any
	fail   []func(w http.ResponseWriter)
	Tokens int // tokens issued
}

// Start starts a TLS server for one application writing to one rule's
// stream.
func Start(tenant, clientID, secret, dcr, stream string) *Server {
	s := &Server{Tenant: tenant, ClientID: clientID, Secret: secret, DCR: dcr, Stream: stream, issued: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{tenant}/oauth2/v2.0/token", s.token)
	mux.HandleFunc("POST /dataCollectionRules/{dcr}/streams/{stream}", s.ingest)
	s.Server = httptest.NewTLSServer(mux)
	return s
}

func answer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	oauthErr := func(status int, code, desc string) {
		answer(w, status, map[string]any{"error": code, "error_description": desc + "\r\nTrace ID: 0000\r\nTimestamp: 2026-11-27 00:00:00Z"})
	}
	switch {
	case r.PathValue("tenant") != s.Tenant:
		oauthErr(400, "invalid_request", "AADSTS90002: Tenant '"+r.PathValue("tenant")+"' not found.")
	case r.FormValue("grant_type") != "client_credentials":
		oauthErr(400, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
	case r.FormValue("client_id") != s.ClientID:
		oauthErr(400, "unauthorized_client", "AADSTS700016: Application with identifier '"+r.FormValue("client_id")+"' was not found in the directory.")
	case r.FormValue("client_secret") != s.Secret:
		oauthErr(401, "invalid_client", "AADSTS7000215: Invalid client secret provided.")
	case r.FormValue("scope") != "https://monitor.azure.com//.default":
		oauthErr(400, "invalid_scope", "AADSTS70011: The provided value for the input parameter 'scope' is not valid.")
	default:
		s.mu.Lock()
		s.n++
		s.Tokens++
		t := fmt.Sprintf("eyJ0eXAi.token-%d", s.n)
		s.issued[t] = true
		s.mu.Unlock()
		answer(w, 200, map[string]any{"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599, "access_token": t})
	}
}

func (s *Server) ingest(w http.ResponseWriter, r *http.Request) {
	apiErr := func(status int, code, msg string) {
		answer(w, status, map[string]any{"error": map[string]any{"code": code, "message": msg}})
	}
	s.mu.Lock()
	ok := s.issued[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	var fail func(http.ResponseWriter)
	if ok && len(s.fail) > 0 {
		fail, s.fail = s.fail[0], s.fail[1:]
	}
	s.mu.Unlock()
	switch {
	case !ok:
		apiErr(401, "InvalidToken", "The provided access token is invalid or expired.")
		return
	case r.URL.Query().Get("api-version") != "2023-01-01":
		apiErr(400, "InvalidApiVersion", "The api-version is missing or not supported.")
		return
	case r.PathValue("dcr") != s.DCR:
		apiErr(404, "InvalidDcrImmutableId", "No data collection rule with this immutable id.")
		return
	case r.PathValue("stream") != s.Stream:
		apiErr(400, "InvalidStream", "The data collection rule declares no stream "+r.PathValue("stream")+".")
		return
	case fail != nil:
		fail(w)
		return
	}
	s.take(w, r, apiErr)
}

// take reads the rows of a call and keeps them when they are the
// declaration's.
func (s *Server) take(w http.ResponseWriter, r *http.Request, apiErr func(int, string, string)) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			apiErr(400, "InvalidContentEncoding", err.Error())
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(io.LimitReader(body, 1<<20+1))
	if err != nil || len(raw) > 1<<20 {
		apiErr(413, "ContentLengthLimitExceeded", "The maximum size of a call is 1 MB.")
		return
	}
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil {
		apiErr(400, "InvalidJson", "The body is not a JSON array.")
		return
	}
	for _, row := range rows {
		var cols []string
		for k := range row {
			cols = append(cols, k)
		}
		slices.Sort(cols)
		if !slices.Equal(cols, Columns) {
			apiErr(400, "InvalidColumns", fmt.Sprintf("a row's columns %v are not the stream's %v", cols, Columns))
			return
		}
	}
	s.mu.Lock()
	s.rows = append(s.rows, rows...)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Fail queues answers given to the next authorized calls.
func (s *Server) Fail(answers ...func(w http.ResponseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, answers...)
}

// Expire makes every token issued so far invalid, as an expired one is.
func (s *Server) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issued = map[string]bool{}
}

// Rows returns the rows taken so far.
func (s *Server) Rows() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.rows...)
}
