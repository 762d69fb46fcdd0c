package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/mailtest"
)

// TestStreamAlertsByEMail: serve (embedded) delivers a webhook stream
// whose destination answers 500; once it has failed for
// AUDITLOG_STREAM_ALERT_AFTER, its notify address gets one e-mail saying
// so, through a real SMTP server, with the reason; once the destination
// takes the batches again, one more saying it is delivering again, and the
// stream is active and caught up.
func TestStreamAlertsByEMail(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "the SIEM's disk is full", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	hook := &siem{srv: srv}
	mail := mailtest.Start(t)
	vars := with(map[string]string{"AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "50", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_STREAM_EVERY": "100ms",
		"AUDITLOG_STREAM_ALLOW_PRIVATE": "true", "AUDITLOG_STREAM_CA_FILE": hook.caFile(t), "AUDITLOG_STREAM_ALERT_AFTER": "2s",
		"AUDITLOG_LOG_LEVEL": "warn", "AUDITLOG_SMTP_FROM": "Audit log <auditlog@platform.example>"}, mailVars(mail))
	m := startMain(t, "serve", vars)
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "secops@acme.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	code, body := c.do("POST", "/api/streams", tok, []byte(`{"name":"SOAR","destination":{"kind":"webhook","url":"`+srv.URL+`/in"},"notify":["oncall@acme.example"]}`))
	var st api.StreamView
	if err := json.Unmarshal(body, &st); code != 201 || err != nil {
		t.Fatalf("create: %d %s", code, body)
	}
	ofStream := func(subject string) func(mailtest.Message) bool {
		return func(m mailtest.Message) bool {
			return m.Header.Get("X-Auditlog-Stream") == st.ID && strings.Contains(m.Header.Get("Subject"), subject)
		}
	}
	failing := mail.Wait(t, time.Minute, ofStream("has been failing since"))
	if len(failing.To) != 1 || failing.To[0] != "oncall@acme.example" || !strings.Contains(failing.Body, "the SIEM's disk is full") {
		t.Fatalf("the failing alert: to %v\n%s", failing.To, failing.Body)
	}
	down.Store(false)
	mail.Wait(t, time.Minute, ofStream("is delivering again"))
	n := 0
	for _, msg := range mail.Messages() {
		if msg.Header.Get("X-Auditlog-Stream") == st.ID {
			n++
		}
	}
	_, body = c.do("GET", "/api/streams/"+st.ID, tok, nil)
	if err := json.Unmarshal(body, &st); err != nil || n != 2 || st.State != stream.Active || st.Cursor == 0 {
		t.Fatalf("%d alerts; the stream: %s", n, body)
	}
}
