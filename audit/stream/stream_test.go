package stream_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

func webhook() stream.Stream {
	return stream.Stream{Name: " SIEM relay ", Destination: newProbe(probe{URL: "https://siem.example.com/hooks/audit", Headers: map[string]string{"X-Api-Key": "k-123"}})}
}

// TestStreamConfigurationNamesEveryBadField: each rule of a stream's
// configuration refuses its case with EINVALID naming the field, and a
// valid one is normalised (name trimmed, format defaulted).
func TestStreamConfigurationNamesEveryBadField(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(s *stream.Stream)
		field string // "" when valid
	}{
		{"an https destination", func(*stream.Stream) {}, ""},
		{"OCSF", func(s *stream.Stream) { s.Format = stream.FormatOCSF }, ""},
		{"an unknown format", func(s *stream.Stream) { s.Format = "cef" }, "format"},
		{"no name", func(s *stream.Stream) { s.Name = "  " }, "name"},
		{"a long name", func(s *stream.Stream) { s.Name = strings.Repeat("n", 81) }, "name"},
		{"an unknown destination", func(s *stream.Stream) { s.Destination.Kind = "kinesis" }, "destination.kind"},
		{"http", func(s *stream.Stream) { probeOf(s.Destination).URL = "http://siem.example.com/hooks" }, "destination.url"},
		{"no URL", func(s *stream.Stream) { probeOf(s.Destination).URL = "" }, "destination.url"},
		{"a relative URL", func(s *stream.Stream) { probeOf(s.Destination).URL = "/hooks" }, "destination.url"},
		{"credentials in the URL", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://u:p@siem.example.com/" }, "destination.url"},
		{"loopback", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://127.0.0.1:9000/" }, "destination.url"},
		{"localhost", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://localhost/" }, "destination.url"},
		{"a private address", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://10.1.2.3/" }, "destination.url"},
		{"link-local (cloud metadata)", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://169.254.169.254/latest" }, "destination.url"},
		{"IPv6 loopback", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://[::1]:8443/" }, "destination.url"},
		{"IPv6 unique local", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://[fd00::1]/" }, "destination.url"},
		{"IPv4-mapped loopback", func(s *stream.Stream) { probeOf(s.Destination).URL = "https://[::ffff:127.0.0.1]/" }, "destination.url"},
		{"a reserved header", func(s *stream.Stream) {
			probeOf(s.Destination).Headers = map[string]string{"Content-Type": "text/plain"}
		}, "destination.headers.Content-Type"},
		{"the signature header", func(s *stream.Stream) {
			probeOf(s.Destination).Headers = map[string]string{"x-auditlog-signature": "x"}
		}, "destination.headers.x-auditlog-signature"},
		{"a bad header name", func(s *stream.Stream) { probeOf(s.Destination).Headers = map[string]string{"Bad Name": "x"} }, "destination.headers"},
		{"a header value with a line break", func(s *stream.Stream) {
			probeOf(s.Destination).Headers = map[string]string{"X-Key": "a\r\nInjected: 1"}
		}, "destination.headers.X-Key"},
		{"an unknown format", func(s *stream.Stream) { s.Format = "cef" }, "format"},
		{"a filter that does not parse", func(s *stream.Stream) { s.Filter = `actor:"unclosed` }, "filter"},
		{"a filter with control characters", func(s *stream.Stream) { s.Filter = "z\x1b\x00" }, "filter"}, // found by schemathesis: a 500 before
		{"an unknown qualifier", func(s *stream.Stream) { s.Filter = "colour:red" }, "filter"},
		{"masking a field that is no personal data", func(s *stream.Stream) { s.Mask = map[string]string{"action": "hash"} }, "mask.action"},
		{"an unknown masking", func(s *stream.Stream) { s.Mask = map[string]string{"actor.email": "encrypt"} }, "mask.actor.email"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := webhook()
			tc.edit(&s)
			err := s.Normalize(stream.Rules{})
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if s.Name != "SIEM relay" || s.Format == "" {
					t.Fatalf("not normalised: %q %q", s.Name, s.Format)
				}
				return
			}
			fields := audit.ErrorFields(err)
			if audit.ErrorCode(err) != audit.EINVALID || !slices.ContainsFunc(fields, func(f audit.FieldError) bool { return f.Field == tc.field }) {
				t.Fatalf("got %v (%+v), want EINVALID naming %s", err, fields, tc.field)
			}
		})
	}
}

// TestSovereignIntakeDomainsAreConfigured: a vendor destination's host
// must be under its intake domains; a deployment's own (Rules.Intake, by
// kind) replace the vendor's defaults.
func TestSovereignIntakeDomainsAreConfigured(t *testing.T) {
	s := webhook()
	probeOf(s.Destination).URL = "https://intake.logs.dd.sovereign.example/api/v2/logs"
	if err := s.Normalize(stream.Rules{}); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("a host under no default domain: %v", err)
	}
	sovereign := stream.Rules{Intake: map[string][]string{probeKind: {"dd.sovereign.example"}}}
	if err := s.Normalize(sovereign); err != nil {
		t.Fatalf("a host under the configured domain: %v", err)
	}
	probeOf(s.Destination).URL = "https://http-intake.logs.example.com/api/v2/logs"
	if err := s.Normalize(sovereign); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("the configured domains replace the defaults: %v", err)
	}
	probeOf(s.Destination).URL = "https://logs.notexample.com/"
	if err := s.Normalize(stream.Rules{}); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("a look-alike of the default domain: %v", err)
	}
}

// TestStreamPrivateAddressesInDevelopment: a deployment that allows them
// (development, tests) takes a loopback destination; production does not.
func TestStreamPrivateAddressesInDevelopment(t *testing.T) {
	s := webhook()
	probeOf(s.Destination).URL = "https://127.0.0.1:9443/hook"
	if err := s.Normalize(stream.Rules{AllowPrivate: true}); err != nil {
		t.Fatalf("development: %v", err)
	}
	// Refused, with the setting that allows it named (issue 57: a
	// developer pointing a stream at a local receiver).
	if err := s.Normalize(stream.Rules{}); audit.ErrorCode(err) != audit.EINVALID || !strings.Contains(fmt.Sprint(audit.ErrorFields(err)), "AUDITLOG_STREAM_ALLOW_PRIVATE=true") {
		t.Fatalf("production: %v %v", err, audit.ErrorFields(err))
	}
	for host, private := range map[string]bool{"siem.example.com": false, "8.8.8.8": false, "2001:4860::8888": false, "100.64.1.1": true,
		"printer.local": true, "db.internal": true, "LOCALHOST.": true, "224.0.0.1": true, "0.0.0.0": true} {
		if stream.PrivateHost(host) != private {
			t.Errorf("PrivateHost(%q) = %v", host, !private)
		}
	}
}

// TestStreamSecretsAreMaskedWhereShown: a stream shown (API, panel, the
// tenant's log) has its kind's secrets masked (Settings.Redacted), and
// leaves the stream it came from intact; %v never prints them.
func TestStreamSecretsAreMaskedWhereShown(t *testing.T) {
	s := webhook()
	probeOf(s.Destination).Key = strings.Repeat("s", 40)
	probeOf(s.Destination).Token = "tok"
	shown := probeOf(s.Redacted().Destination)
	if shown.Key != stream.MaskedSecret || shown.Token != stream.MaskedSecret || shown.Headers["X-Api-Key"] != stream.MaskedSecret {
		t.Fatalf("shown: %+v", shown)
	}
	if p := probeOf(s.Destination); p.Headers["X-Api-Key"] != "k-123" || p.Key == stream.MaskedSecret {
		t.Fatal("Redacted changed the stream it was called on")
	}
	if out := fmt.Sprintf("%v %+v %s", s.Destination, s.Destination, s.Destination); strings.Contains(out, "k-123") || strings.Contains(out, "sss") || strings.Contains(out, "tok") {
		t.Fatalf("printed: %s", out)
	}
}

// TestStreamStateChanges: the cursor only moves forward by delivery and
// back by replay; 401/403 pause, other failures mark the stream failing
// until a delivery; pause and resume are each refused twice in a row.
func TestStreamStateChanges(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := stream.Stream{State: stream.Active}
	if err := s.Delivered(100, 10, now); err != nil || s.Cursor != 100 {
		t.Fatalf("delivered: %v %d", err, s.Cursor)
	}
	if err := s.Delivered(100, 10, now); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("the same cursor again: %v", err)
	}
	s.Failed("429 Too Many Requests", now)
	if s.State != stream.Failing || s.Reason == "" {
		t.Fatalf("failed: %+v", s)
	}
	if err := s.Delivered(150, 5, now); err != nil || s.State != stream.Active || s.Reason != "" {
		t.Fatalf("a delivery after a failure: %v %+v", err, s)
	}
	if err := s.Pause("401 from the destination: the token was refused", now); err != nil || s.State != stream.Paused {
		t.Fatalf("pause: %v", err)
	}
	s.Failed("500", now)
	if s.State != stream.Paused {
		t.Fatal("a failure unpaused the stream")
	}
	if err := s.Pause("again", now); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("pause twice: %v", err)
	}
	if err := s.Resume(now); err != nil || s.State != stream.Active || s.Reason != "" {
		t.Fatalf("resume: %v %+v", err, s)
	}
	if err := s.Resume(now); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("resume twice: %v", err)
	}
	if err := s.Replay(200, now); audit.ErrorCode(err) != audit.EINVALID || audit.ErrorFields(err)[0].Field != "from" {
		t.Fatalf("a replay forward: %v", err)
	}
	if err := s.Replay(10, now); err != nil || s.Cursor != 10 {
		t.Fatalf("replay: %v %d", err, s.Cursor)
	}
}

// TestStreamParksARejectedRange: a rejected range moves the cursor past
// it and is kept with its reason; the stream stays failing while any is
// parked, a failed retry counts and reschedules, an accepted one goes;
// past MaxParked the stream pauses instead.
func TestStreamParksARejectedRange(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := stream.Stream{State: stream.Active, Cursor: 100}
	if err := s.Park(90, 150, "x", now, now); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("parking a range not at the cursor: %v", err)
	}
	if err := s.Park(100, 150, "400 Bad Request: event too large", now.Add(time.Second), now); err != nil || s.Cursor != 150 || s.State != stream.Failing || len(s.Parked) != 1 {
		t.Fatalf("park: %v %+v", err, s)
	}
	if err := s.Delivered(200, 5, now); err != nil || s.State != stream.Failing || !strings.Contains(s.Reason, "1 ranges rejected") {
		t.Fatalf("a delivery with a range parked: %v %s %q", err, s.State, s.Reason)
	}
	if err := s.Unpark(100, false, 0, "400 again", now.Add(time.Minute), now); err != nil || s.Parked[0].Attempts != 2 || !s.Parked[0].NextAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("a failed retry: %v %+v", err, s.Parked)
	}
	if err := s.Unpark(7, true, 0, "", now, now); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("an unknown range: %v", err)
	}
	if err := s.Unpark(100, true, 50, "", now, now); err != nil || len(s.Parked) != 0 || s.State != stream.Active || s.Reason != "" {
		t.Fatalf("accepted at last: %v %+v", err, s)
	}
	for i := 0; i < stream.MaxParked; i++ {
		if err := s.Park(s.Cursor, s.Cursor+1, "rejected", now, now); err != nil {
			t.Fatal(err)
		}
	}
	at := s.Cursor
	if err := s.Park(at, at+1, "once more", now, now); err != nil || s.State != stream.Paused || s.Cursor != at || len(s.Parked) != stream.MaxParked {
		t.Fatalf("past the bound: %v %s at %d with %d parked", err, s.State, s.Cursor, len(s.Parked))
	}
}

// TestAKindTheDeploymentHasNotIsRefused: a kind the deployment cannot
// deliver to (Rules.Off: S3 without an S3 server) is refused with why,
// naming the kinds it can.
func TestAKindTheDeploymentHasNotIsRefused(t *testing.T) {
	s := webhook()
	s.Filter, s.Mask = "-action:access", map[string]string{"actor.ip": "drop"}
	if err := s.Normalize(stream.Rules{}); err != nil {
		t.Fatalf("delivered: %v", err)
	}
	err := s.Normalize(stream.Rules{Off: map[string]string{probeKind: "no probe server here"}})
	if f := audit.ErrorFields(err); audit.ErrorCode(err) != audit.EINVALID || len(f) != 1 || f[0].Field != "destination.kind" ||
		!strings.Contains(f[0].Message, "no probe server here") || strings.Contains(f[0].Message, "one of "+probeKind) {
		t.Fatalf("off: %v %+v", err, f)
	}
}
