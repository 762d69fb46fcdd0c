package sentinel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/azmonitor"
	"github.com/auditlog/auditlog/internal/testkit/batchtest"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/sentinel"
)

const (
	tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	client = "3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b"
	secret = "Xy8Q~abcdefghijklmnopqrstuvwxyz0123456789"
	dcr    = "dcr-0123456789abcdef0123456789abcdef"
)

func start(t *testing.T) (*azmonitor.Server, *sentinel.Client, stream.Destination) {
	s := azmonitor.Start(tenant, client, secret, dcr, "Custom-AuditLog")
	t.Cleanup(s.Close)
	c := sentinel.NewClient(true, 10*time.Second, s.URL, sentinel.DefaultScope)
	c.HTTP.Transport.(*http.Transport).TLSClientConfig = s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	d := stream.NewDestination(&sentinel.Config{URL: s.URL, DCR: dcr, StreamName: "Custom-AuditLog", AzureTenant: tenant, ClientID: client, Secret: secret})
	return s, c, d
}

// TestSentinelTakesABatchAsRowsOfTheStream: 2,000 events (2 MB of them
// big) go in calls of at most 1 MB under one token; every event is a row
// of the declared columns, in order, with its time, tenant, stream and
// leaf index; an expired token is replaced and the call made again.
func TestSentinelTakesABatchAsRowsOfTheStream(t *testing.T) {
	s, c, d := start(t)
	ctx := context.Background()
	if o, _, reason, err := c.Send(ctx, d, batchtest.Big("t-1", 40, 2000)); o != streaming.Accepted || err != nil {
		t.Fatalf("%s %s %v", o, reason, err)
	}
	rows := s.Rows()
	if len(rows) != 2000 || s.Tokens != 1 {
		t.Fatalf("%d rows under %d tokens", len(rows), s.Tokens)
	}
	for i, r := range rows {
		want := time.UnixMilli(1795687202250 + int64(i)).UTC().Format(time.RFC3339Nano)
		if r["LeafIndex"] != float64(40+i) || r["AuditTenantId"] != "t-1" || r["StreamId"] != "s-1" || r["Format"] != "event" ||
			r["TimeGenerated"] != want || r["Event"].(map[string]any)["id"] != fmt.Sprintf("evt_%d", i) {
			t.Fatalf("row %d: %v", i, r)
		}
	}
	s.Expire()
	if o, _, reason, _ := c.Send(ctx, d, batchtest.Big("t-1", 2040, 3)); o != streaming.Accepted || s.Tokens != 2 {
		t.Fatalf("after the token expired: %s %s, %d tokens", o, reason, s.Tokens)
	}
}

// TestSentinelAnswers: a wrong secret, tenant or client is refused by
// Entra ID and pauses the stream with its reason; a 200 without a token
// is retried; so does a rule that
// does not exist; a row the stream does not declare is rejected (the
// batch parked); 429 is retried after its Retry-After, 503 retried.
func TestSentinelAnswers(t *testing.T) {
	s, c, d := start(t)
	ctx := context.Background()
	for name, edit := range map[string]func(*sentinel.Config){
		"AADSTS7000215":         func(d *sentinel.Config) { d.Secret = "wrong" },
		"AADSTS90002":           func(d *sentinel.Config) { d.AzureTenant = "00000000-0000-0000-0000-000000000000" },
		"AADSTS700016":          func(d *sentinel.Config) { d.ClientID = "00000000-0000-0000-0000-000000000000" },
		"InvalidDcrImmutableId": func(d *sentinel.Config) { d.DCR = "dcr-ffffffffffffffffffffffffffffffff" },
	} {
		cfg := *d.Settings.(*sentinel.Config)
		edit(&cfg)
		bad := stream.NewDestination(&cfg)
		if o, _, reason, _ := c.Send(ctx, bad, batchtest.Big("t", 0, 2)); o != streaming.Refused || !strings.Contains(reason, name) {
			t.Errorf("%s: %s %q", name, o, reason)
		}
		if strings.Contains(fmt.Sprint(c.Send(ctx, bad, batchtest.Big("t", 0, 2))), "Trace ID") {
			t.Errorf("%s: the reason carries Entra ID's trace lines", name)
		}
	}
	empty := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
	defer empty.Close()
	noToken := sentinel.NewClient(true, 10*time.Second, empty.URL, sentinel.DefaultScope)
	noToken.HTTP.Transport.(*http.Transport).TLSClientConfig = empty.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	if o, _, reason, _ := noToken.Send(ctx, d, batchtest.Big("t", 0, 2)); o != streaming.Retry || !strings.Contains(reason, "from Entra ID") {
		t.Errorf("a 200 without a token: %s %q", o, reason)
	}
	cfg := *d.Settings.(*sentinel.Config)
	cfg.StreamName = "Custom-Other"
	other := stream.NewDestination(&cfg)
	if o, _, reason, _ := c.Send(ctx, other, batchtest.Big("t", 0, 2)); o != streaming.Rejected || !strings.Contains(reason, "InvalidStream") {
		t.Errorf("another stream: %s %q", o, reason)
	}
	s.Fail(func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "9")
		w.WriteHeader(http.StatusTooManyRequests)
	},
		func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	if o, wait, _, _ := c.Send(ctx, d, batchtest.Big("t", 0, 2)); o != streaming.Retry || wait != 9*time.Second {
		t.Errorf("429: %s %s", o, wait)
	}
	if o, _, _, _ := c.Send(ctx, d, batchtest.Big("t", 0, 2)); o != streaming.Retry {
		t.Errorf("503: %s", o)
	}
	if len(s.Rows()) != 0 {
		t.Errorf("%d rows taken", len(s.Rows()))
	}
}
