package webhook_test

import (
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/internal/testkit/errtest"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// TestStreamConfigRoundTrip: a new webhook gets a made secret and its
// creator as the alert address; the configuration as shown (secrets
// masked) sent back keeps every secret; a bad change names its field and
// leaves the stream as it was.
func TestStreamConfigRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	rules := stream.Rules{}
	made := strings.Repeat("m", 40)
	c := stream.Config{Name: " SIEM ", Destination: stream.NewDestination(&webhook.Config{URL: "https://siem.example.com/in",
		Headers: map[string]string{"X-Key": "header-secret"}})}
	s, err := stream.NewStream("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", c, "ana@acme.example", rules, func() string { return made }, t0)
	if err != nil || s.Name != "SIEM" || hook(s.Destination).Secret != made || s.Notify[0] != "ana@acme.example" || s.State != stream.Active || s.Format != stream.FormatEvent {
		t.Fatalf("new: %+v %v", s, err)
	}
	shown := s.Config()
	if hook(shown.Destination).Secret != stream.MaskedSecret || hook(shown.Destination).Headers["X-Key"] != stream.MaskedSecret {
		t.Fatalf("shown: %+v", shown.Destination)
	}
	shown.Filter = "-action:access"
	if err := s.Reconfigure(shown, rules, t0.Add(time.Minute)); err != nil || hook(s.Destination).Secret != made || hook(s.Destination).Headers["X-Key"] != "header-secret" || s.Filter != "-action:access" {
		t.Fatalf("reconfigured: %+v %v", s.Destination, err)
	}
	bad := s.Config()
	hook(bad.Destination).URL, bad.Notify = "http://siem.example.com", []string{"not an address"}
	err = s.Reconfigure(bad, rules, t0)
	for _, f := range []string{"destination.url", "notify[0]"} {
		if !strings.Contains(strings.Join(errtest.Fields(err), " "), f) {
			t.Errorf("the error %v does not name %s", err, f)
		}
	}
	if hook(s.Destination).URL != "https://siem.example.com/in" || s.Notify[0] != "ana@acme.example" {
		t.Fatalf("a refused change changed the stream: %+v", s)
	}
}

func hook(d stream.Destination) *webhook.Config { return d.Settings.(*webhook.Config) }

// TestWebhookConfiguration: a webhook's own rules, and the members of
// other kinds it refuses by name.
func TestWebhookConfiguration(t *testing.T) {
	const url = `"url":"https://siem.example.com/hooks/audit"`
	desttest.CheckConfigs(t, []desttest.ConfigCase{
		{Name: "a webhook", JSON: `{"kind":"webhook",` + url + `,"headers":{"X-Api-Key":"k-123"}}`},
		{Name: "its own key", JSON: `{"kind":"webhook",` + url + `,"secret":"` + strings.Repeat("s", 32) + `"}`},
		{Name: "a short key", JSON: `{"kind":"webhook",` + url + `,"secret":"short"}`, Field: "destination.secret"},
		{Name: "a long key", JSON: `{"kind":"webhook",` + url + `,"secret":"` + strings.Repeat("s", 257) + `"}`, Field: "destination.secret"},
		{Name: "a token on a webhook", JSON: `{"kind":"webhook",` + url + `,"token":"12345678-9abc-def0-1234-56789abcdef0"}`, Field: "destination.token"},
		{Name: "a rule on a webhook", JSON: `{"kind":"webhook",` + url + `,"dcr":"dcr-0123456789abcdef0123456789abcdef"}`, Field: "destination.dcr"},
		{Name: "http", JSON: `{"kind":"webhook","url":"http://siem.example.com/"}`, Field: "destination.url"},
		{Name: "a reserved header", JSON: `{"kind":"webhook",` + url + `,"headers":{"X-Auditlog-Timestamp":"1"}}`, Field: "destination.headers.X-Auditlog-Timestamp"},
	})
}
