package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/client"
	"github.com/auditlog/auditlog/restore"
)

// TestWebhookHandler: the service's webhook sender reaches the client's
// handler, signature checked; a tampered or unsigned body is 401, and a
// handler error asks for the request again (500).
func TestWebhookHandler(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	c := newClient(t, client.Config{IngestURL: "http://unused", RestoreSecret: secret})
	var got []restorejob.Request
	fail := false
	srv := httptest.NewServer(c.WebhookHandler(func(_ context.Context, r restorejob.Request) error {
		if fail {
			return context.DeadlineExceeded
		}
		got = append(got, r)
		return nil
	}))
	defer srv.Close()
	req := restorejob.Request{RequestID: "9b0c1d2e-3f4a-5b5c-8d6e-7f8091a2b3c4", TenantID: tenant, Resource: ivr, State: json.RawMessage(`{"greeting":"hi"}`)}
	body, _ := json.Marshal(req)
	hook := &restore.Webhook{URL: srv.URL, Secret: secret}
	if err := hook.Send(context.Background(), req, body); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].RequestID != req.RequestID {
		t.Fatalf("handled %+v", got)
	}
	post := func(b, sig string) int {
		r, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(b))
		r.Header.Set(restorejob.SignatureHeader, sig)
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	sig := restorejob.SignBody(secret, body, time.Now())
	tampered := strings.Replace(string(body), `"hi"`, `"pwned"`, 1)
	if code := post(tampered, sig); code != 401 {
		t.Fatalf("tampered: %d", code)
	}
	if code := post(string(body), ""); code != 401 {
		t.Fatalf("unsigned: %d", code)
	}
	if code := post(string(body), restorejob.SignBody(secret, body, time.Now().Add(-time.Hour))); code != 401 {
		t.Fatalf("replayed an hour later: %d", code)
	}
	fail = true
	if err := hook.Send(context.Background(), req, body); err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("a handler error: %v", err)
	}
	if len(got) != 1 {
		t.Fatalf("handled %d", len(got))
	}
}
