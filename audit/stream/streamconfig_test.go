package stream_test

import (
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/internal/testkit/errtest"
)

// TestStreamConfigRoundTrip: a new webhook gets a made secret and its
// creator as the alert address; the configuration as shown (secrets
// masked) sent back keeps every secret; a bad change names its field and
// leaves the stream as it was.
func TestStreamConfigRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	rules := stream.Rules{}
	made := strings.Repeat("m", 40)
	c := stream.Config{Name: " SIEM ", Destination: stream.Destination{Kind: stream.Webhook, URL: "https://siem.example.com/in",
		Headers: map[string]string{"X-Key": "header-secret"}}}
	s, err := stream.NewStream("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", c, "ana@acme.example", rules, func() string { return made }, t0)
	if err != nil || s.Name != "SIEM" || s.Destination.Secret != made || s.Notify[0] != "ana@acme.example" || s.State != stream.Active || s.Format != stream.FormatEvent {
		t.Fatalf("new: %+v %v", s, err)
	}
	shown := s.Config()
	if shown.Destination.Secret != stream.MaskedSecret || shown.Destination.Headers["X-Key"] != stream.MaskedSecret {
		t.Fatalf("shown: %+v", shown.Destination)
	}
	shown.Filter = "-action:access"
	if err := s.Reconfigure(shown, rules, t0.Add(time.Minute)); err != nil || s.Destination.Secret != made || s.Destination.Headers["X-Key"] != "header-secret" || s.Filter != "-action:access" {
		t.Fatalf("reconfigured: %+v %v", s.Destination, err)
	}
	bad := s.Config()
	bad.Destination.URL, bad.Notify = "http://siem.example.com", []string{"not an address"}
	err = s.Reconfigure(bad, rules, t0)
	for _, f := range []string{"destination.url", "notify[0]"} {
		if !strings.Contains(strings.Join(errtest.Fields(err), " "), f) {
			t.Errorf("the error %v does not name %s", err, f)
		}
	}
	if s.Destination.URL != "https://siem.example.com/in" || s.Notify[0] != "ana@acme.example" {
		t.Fatalf("a refused change changed the stream: %+v", s)
	}
}
