package testenv

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// Request builds a request with an optional bearer token, body and
// header pairs (name, value, name, value…).
func Request(t testing.TB, method, url, token string, body []byte, header ...string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// Send sends req without following redirects (a test checks the
// redirect itself) and returns the answer with its body read.
func Send(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", req.Method, req.URL, err)
	}
	return res, b
}
