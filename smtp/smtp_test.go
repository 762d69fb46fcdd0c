package smtp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"
	"github.com/auditlog/auditlog/streaming/splunk"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/mailtest"
	"github.com/auditlog/auditlog/smtp"
)

func TestNotifyOverSTARTTLSWithAuth(t *testing.T) {
	srv := mailtest.Start(t)
	m, err := smtp.New(smtp.Config{Host: srv.Host, Port: srv.Port, Username: srv.User, Password: srv.Password,
		From: "Audit log <auditlog@example.com>", StartTLS: smtp.StartTLSRequired, CAFile: srv.CAFile, PublicURL: "https://audit.example.com/"})
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	j := exportjob.Job{ID: "0a4f4d9e-1c7b-4b8e-9d1e-3f5a2b6c7d8e", Owner: exportjob.Owner{Email: "Ana.Admin@acme.example"},
		State: exportjob.Done, RowsWritten: 12345, Query: "action=delete&resourceType=queue", ExpiresAt: &exp}
	if err := m.NotifyExport(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	got := srv.Wait(t, 10*time.Second, func(mailtest.Message) bool { return true })
	if !got.TLS || got.User != srv.User || got.From != "auditlog@example.com" || len(got.To) != 1 || got.To[0] != "Ana.Admin@acme.example" {
		t.Fatalf("envelope: %+v", got)
	}
	if s := got.Header.Get("Subject"); s != "Your audit log export is ready (12,345 rows)" {
		t.Fatalf("subject %q", s)
	}
	for _, want := range []string{"Open:     https://audit.example.com/settings/audit/?view=exports\r\n",
		"API:      https://audit.example.com/api/audit-logs/exports/0a4f4d9e-1c7b-4b8e-9d1e-3f5a2b6c7d8e/file", "action=delete&resourceType=queue", "2026-11-28 10:00 UTC"} {
		if !strings.Contains(got.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, got.Body)
		}
	}

	// A failure notice, and a wrong password is an error, not silence.
	j.State, j.Error = exportjob.Failed, "the audit log store was unavailable"
	if err := m.NotifyExport(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	srv.Wait(t, 10*time.Second, func(m mailtest.Message) bool {
		return m.Header.Get("Subject") == "Your audit log export failed" && strings.Contains(m.Body, j.Error)
	})
	bad, _ := smtp.New(smtp.Config{Host: srv.Host, Port: srv.Port, Username: srv.User, Password: "wrong", From: "a@example.com", CAFile: srv.CAFile, PublicURL: "http://x"})
	if err := bad.NotifyExport(context.Background(), j); audit.ErrorCode(err) != audit.EUNAVAILABLE {
		t.Fatalf("wrong password: %v", err)
	}
	// A certificate that does not verify is refused.
	untrusted, _ := smtp.New(smtp.Config{Host: srv.Host, Port: srv.Port, From: "a@example.com", StartTLS: smtp.StartTLSRequired, PublicURL: "http://x"})
	if err := untrusted.NotifyExport(context.Background(), j); err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("untrusted certificate: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []smtp.Config{
		{From: "a@example.com", PublicURL: "http://x"},
		{Host: "h", From: "not an address", PublicURL: "http://x"},
		{Host: "h", From: "a@example.com", PublicURL: "http://x", StartTLS: "maybe"},
		{Host: "h", From: "a@example.com"},
	} {
		if _, err := smtp.New(c); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// TestStreamAlerts: a failing stream's alert and its recovery reach every
// address the stream names, saying what failed and since when.
func TestStreamAlerts(t *testing.T) {
	srv := mailtest.Start(t)
	m, err := smtp.New(smtp.Config{Host: srv.Host, Port: srv.Port, Username: srv.User, Password: srv.Password,
		From: "Audit log <auditlog@example.com>", StartTLS: smtp.StartTLSRequired, CAFile: srv.CAFile, PublicURL: "https://audit.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	st := stream.Stream{ID: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", Name: "Splunk", State: stream.Failing, Reason: "503 Service Unavailable from the collector",
		Notify: []string{"secops@acme.example", "ana@acme.example"}, Destination: stream.NewDestination(&splunk.Config{}),
		Health: stream.Health{FailingSince: since, LastSuccessAt: since.Add(-time.Minute)}}
	if err := m.NotifyStream(context.Background(), st, true); err != nil {
		t.Fatal(err)
	}
	for _, to := range st.Notify {
		got := srv.Wait(t, 10*time.Second, func(msg mailtest.Message) bool { return len(msg.To) == 1 && msg.To[0] == to })
		if s := got.Header.Get("Subject"); !strings.Contains(s, `"Splunk" has been failing since 2026-11-27 08:00 UTC`) ||
			!strings.Contains(got.Body, "503 Service Unavailable") || !strings.Contains(got.Body, "https://audit.example.com/api/streams/"+st.ID) {
			t.Fatalf("to %s: %q\n%s", to, s, got.Body)
		}
	}
	st.State, st.Health.FailingSince = stream.Active, time.Time{}
	if err := m.NotifyStream(context.Background(), st, false); err != nil {
		t.Fatal(err)
	}
	srv.Wait(t, 10*time.Second, func(msg mailtest.Message) bool {
		return strings.Contains(msg.Header.Get("Subject"), `"Splunk" is delivering again`)
	})
}
