package webhook_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// TestSignatureVerifies: what Sign writes, Verify accepts, within the
// window, with the same body and secret only; a rotated secret's two
// signatures are both tried.
func TestSignatureVerifies(t *testing.T) {
	secret, body := []byte("0123456789abcdef0123456789abcdef"), []byte(`{"tenantId":"t","events":[]}`)
	now := time.Unix(1_790_000_000, 0)
	sig := webhook.Sign(secret, now, body)
	ts := "1790000000"
	if err := webhook.Verify(secret, ts, sig, body, now.Add(time.Minute), webhook.DefaultWindow); err != nil {
		t.Fatalf("a fresh delivery: %v", err)
	}
	for name, c := range map[string]struct {
		secret     []byte
		ts, sig    string
		body       string
		at         time.Time
		wantSubstr string
	}{
		"another body":         {secret, ts, sig, `{"tenantId":"u","events":[]}`, now, "does not match"},
		"another secret":       {[]byte("another-secret-another-secret-xx"), ts, sig, string(body), now, "does not match"},
		"replayed later":       {secret, ts, sig, string(body), now.Add(6 * time.Minute), "window"},
		"signed in the future": {secret, ts, sig, string(body), now.Add(-6 * time.Minute), "window"},
		"a moved timestamp":    {secret, "1790000060", sig, string(body), now, "does not match"},
		"no timestamp":         {secret, "", sig, string(body), now, webhook.TimestampHeader},
	} {
		if err := webhook.Verify(c.secret, c.ts, c.sig, []byte(c.body), c.at, webhook.DefaultWindow); err == nil || !strings.Contains(err.Error(), c.wantSubstr) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.wantSubstr)
		}
	}
	rotated := webhook.Sign([]byte("the-old-secret-the-old-secret-xx"), now, body) + "," + sig
	if err := webhook.Verify(secret, ts, rotated, body, now, webhook.DefaultWindow); err != nil {
		t.Fatalf("two signatures, one matching: %v", err)
	}
}

// TestBatchCheck: a batch is one tenant's, starts at the cursor, and
// holds rising leaf indexes inside its range.
func TestBatchCheck(t *testing.T) {
	ok := streaming.Batch{TenantID: "a", From: 10, To: 20, Events: []streaming.Entry{{LeafIndex: 10}, {LeafIndex: 13}, {LeafIndex: 19}}}
	if err := ok.Check("a", 10); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		b      streaming.Batch
		cursor uint64
	}{
		"another tenant's":  {streaming.Batch{TenantID: "b", From: 10, To: 20}, 10},
		"not at the cursor": {streaming.Batch{TenantID: "a", From: 11, To: 20}, 10},
		"an empty range":    {streaming.Batch{TenantID: "a", From: 10, To: 10}, 10},
		"a repeated index":  {streaming.Batch{TenantID: "a", From: 10, To: 20, Events: []streaming.Entry{{LeafIndex: 12}, {LeafIndex: 12}}}, 10},
		"out of order":      {streaming.Batch{TenantID: "a", From: 10, To: 20, Events: []streaming.Entry{{LeafIndex: 15}, {LeafIndex: 11}}}, 10},
		"outside its range": {streaming.Batch{TenantID: "a", From: 10, To: 20, Events: []streaming.Entry{{LeafIndex: 20}}}, 10},
		"before its range":  {streaming.Batch{TenantID: "a", From: 10, To: 20, Events: []streaming.Entry{{LeafIndex: 9}}}, 10},
	} {
		if err := c.b.Check("a", c.cursor); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestClassify: each answer's meaning for the stream, and the waits.
func TestClassify(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		status int
		ra     string
		want   streaming.Outcome
		wait   time.Duration
	}{
		{200, "", streaming.Accepted, 0}, {204, "", streaming.Accepted, 0},
		{401, "", streaming.Refused, 0}, {403, "", streaming.Refused, 0},
		{429, "7", streaming.Retry, 7 * time.Second}, {503, now.Add(30 * time.Second).Format(http.TimeFormat), streaming.Retry, 30 * time.Second},
		{500, "", streaming.Retry, 0}, {408, "", streaming.Retry, 0}, {502, "soon", streaming.Retry, 0},
		{400, "", streaming.Rejected, 0}, {413, "", streaming.Rejected, 0}, {404, "", streaming.Rejected, 0},
		{301, "", streaming.Rejected, 0}, {307, "", streaming.Rejected, 0}, // a redirect is never followed: the range is parked
	} {
		got, wait := streaming.Classify(c.status, c.ra, now)
		if got != c.want || wait != c.wait {
			t.Errorf("%d %q: %s %s, want %s %s", c.status, c.ra, got, wait, c.want, c.wait)
		}
	}
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 12: time.Minute} {
		if got := streaming.Backoff(n, time.Minute); got != want {
			t.Errorf("attempt %d: %s, want %s", n, got, want)
		}
	}
}

// TestDialerReachesPublicAddressesOnly: in production the dialer refuses
// a destination on loopback, whatever name it was reached by; in
// development it connects.
func TestDialerReachesPublicAddressesOnly(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	client := func(allowPrivate bool) *http.Client {
		tr := srv.Client().Transport.(*http.Transport).Clone()
		tr.DialContext = streaming.Dialer(allowPrivate).DialContext
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test server's own certificate
		return &http.Client{Transport: tr, Timeout: 10 * time.Second}
	}
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		if _, err := client(false).Get(u); err == nil || !strings.Contains(err.Error(), "private") {
			t.Errorf("production, %s: %v, want a refusal naming the private address", u, err)
		}
	}
	res, err := client(true).Get(srv.URL)
	if err != nil {
		t.Fatalf("development: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("development: %d", res.StatusCode)
	}
}

// TestBatchJSONIsEncodingJSONs: a batch's hand-written JSON is byte for
// byte what json.Marshal writes, test or not, with or without a
// checkpoint, with HTML and non-ASCII characters in its strings; a batch
// whose events the filter all left out has "events":[] (never null).
func TestBatchJSONIsEncodingJSONs(t *testing.T) {
	ev := json.RawMessage(`{"id":"evt_1","reason":"a \u003cb\u003e \u0026 c — d"}`)
	for _, b := range []streaming.Batch{
		{TenantID: "t<1>", StreamID: "s&2", Format: "event", From: 3, To: 9, Events: []streaming.Entry{{LeafIndex: 4, Event: ev}, {LeafIndex: 8, Event: ev}},
			Checkpoint: "auditlog.local/tenants/t\n9\nroot=\n\n— auditlog.local abc\n"},
		{TenantID: "t", StreamID: "s", Format: "ocsf", From: 5, To: 5, Test: true, Events: []streaming.Entry{{LeafIndex: 5, Event: ev}}},
		{TenantID: "t", StreamID: "s", From: 0, To: 7},
	} {
		if b.Events == nil {
			if got := b.AppendJSON(nil); !strings.Contains(string(got), `"events":[]`) {
				t.Errorf("no events: %s", got)
			}
			b.Events = []streaming.Entry{}
		}
		var want []byte
		var err error
		if b.Test { // a test delivery's entries have no log position
			type entry struct {
				Event json.RawMessage `json:"event"`
			}
			wire := struct {
				TenantID string  `json:"tenantId"`
				StreamID string  `json:"streamId"`
				Format   string  `json:"format"`
				From     uint64  `json:"from"`
				To       uint64  `json:"to"`
				Events   []entry `json:"events"`
				Test     bool    `json:"test"`
			}{b.TenantID, b.StreamID, b.Format, b.From, b.To, nil, true}
			for _, e := range b.Events {
				wire.Events = append(wire.Events, entry{e.Event})
			}
			want, err = json.Marshal(wire)
		} else {
			want, err = json.Marshal(b)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := b.AppendJSON(nil); string(got) != string(want) || !json.Valid(got) {
			t.Errorf("AppendJSON:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
}

// TestARedirectIsNeverFollowed: a destination answering 3xx gets the
// batch once; the place it points to never gets it, and the batch's
// range is parked (Rejected) with the status in the reason.
func TestARedirectIsNeverFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { elsewhere.Add(1); w.WriteHeader(http.StatusNoContent) }))
	defer other.Close()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c := webhook.NewClient(true, 10*time.Second)
	c.HTTP.Transport.(*http.Transport).TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test servers' own certificates
	b := streaming.Batch{TenantID: "t", StreamID: "s", Format: "event", From: 0, To: 1, Events: []streaming.Entry{{LeafIndex: 0, Event: json.RawMessage(`{}`)}}}
	out, _, reason, err := c.Send(context.Background(), stream.NewDestination(&webhook.Config{URL: srv.URL + "/in", Secret: strings.Repeat("k", 32)}), b)
	if err != nil || out != streaming.Rejected || !strings.Contains(reason, "307") || elsewhere.Load() != 0 {
		t.Fatalf("a 307: %s %q %v; the other host got %d requests", out, reason, err, elsewhere.Load())
	}
}
