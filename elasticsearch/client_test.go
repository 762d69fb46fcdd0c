package elasticsearch_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

// TestClientSendsItsCredentials: basic auth and API keys reach the
// cluster as configured (the client is built on the transport directly),
// and no request asks for a compressed answer.
func TestClientSendsItsCredentials(t *testing.T) {
	var got, encoding string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, encoding = r.Header.Get("Authorization"), r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		cfg  elasticsearch.Config
		want string
	}{
		{elasticsearch.Config{URLs: []string{srv.URL}, Username: "elastic", Password: "hunter2"}, "Basic " + base64.StdEncoding.EncodeToString([]byte("elastic:hunter2"))},
		{elasticsearch.Config{URLs: []string{srv.URL}, APIKey: "a2V5"}, "ApiKey a2V5"},
		{elasticsearch.Config{URLs: []string{srv.URL}}, ""},
	} {
		c, err := elasticsearch.New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.DoJSON(context.Background(), http.MethodGet, "/_cluster/health", nil, nil); err != nil {
			t.Fatal(err)
		}
		// Auth schemes are case-insensitive (RFC 9110 §11.1).
		if !strings.EqualFold(got, tc.want) || (got != "" && got[strings.IndexByte(got, ' '):] != tc.want[strings.IndexByte(tc.want, ' '):]) {
			t.Errorf("Authorization %q, want %q", got, tc.want)
		}
		if strings.Contains(encoding, "gzip") {
			t.Errorf("Accept-Encoding %q: answers must come uncompressed", encoding)
		}
	}
	if _, err := elasticsearch.New(elasticsearch.Config{URLs: []string{"localhost:9200"}}); audit.ErrorCode(err) != audit.EINVALID {
		t.Errorf("a URL without a scheme must be refused: %v", err)
	}
}
