package splunk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/splunkhec"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/splunk"
)

const token = "12345678-9abc-def0-1234-56789abcdef0"

func collector(t *testing.T) (*splunkhec.Server, *splunk.Client, stream.Destination) {
	hec := splunkhec.Start(token)
	t.Cleanup(hec.Close)
	c := splunk.NewClient(true, 10*time.Second)
	c.HTTP.Transport.(*http.Transport).TLSClientConfig = hec.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	c.AckPoll = 10 * time.Millisecond
	return hec, c, stream.NewDestination(&splunk.Config{URL: hec.URL, Token: token, Index: "audit"})
}

func batch(n int) streaming.Batch {
	b := streaming.Batch{TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", StreamID: "s-1", From: 40, To: 40 + uint64(2*n)}
	for i := 0; i < n; i++ {
		ev := `{"id":"evt_` + string(rune('a'+i)) + `","timestamp":"2026-11-26T10:00:0` + string(rune('0'+i)) + `.250Z","action":"update"}`
		b.Events = append(b.Events, streaming.Entry{LeafIndex: uint64(40 + 2*i), Event: json.RawMessage(ev)})
	}
	return b
}

// TestEventsReachTheCollector: each event of a batch is one HEC event
// object with its time, index, source type and indexed fields (tenant,
// stream, leaf index); a batch the filter emptied sends nothing.
func TestEventsReachTheCollector(t *testing.T) {
	hec, c, d := collector(t)
	out, _, reason, err := c.Send(context.Background(), d, batch(3))
	if out != streaming.Accepted || err != nil {
		t.Fatalf("%s %s %v", out, reason, err)
	}
	got := hec.Indexed()
	if len(got) != 3 {
		t.Fatalf("indexed %d events, want 3", len(got))
	}
	e := got[2]
	if e.Index != "audit" || e.Sourcetype != "auditlog:event" || e.Time.String() != "1795687202.25" || e.Fields["leaf_index"] != float64(44) ||
		e.Fields["tenant_id"] != "7c9e6679-7425-40de-944b-e07fc1f90ae7" || !strings.Contains(string(e.Event), `"evt_c"`) {
		t.Fatalf("the third event: %+v", e)
	}
	if out, _, _, err := c.Send(context.Background(), d, streaming.Batch{TenantID: "t", From: 1, To: 9}); out != streaming.Accepted || err != nil || len(hec.Indexed()) != 3 {
		t.Fatalf("an empty batch: %s %v, %d indexed", out, err, len(hec.Indexed()))
	}
}

// TestIndexerAcknowledgment: with acknowledgment on, a batch is accepted
// only once the indexers confirm it on the stream's channel; one never
// confirmed within the bound is sent again (Retry).
func TestIndexerAcknowledgment(t *testing.T) {
	hec, c, d := collector(t)
	hec.Ack, hec.AckAfter = true, 3
	if out, _, reason, err := c.Send(context.Background(), d, batch(2)); out != streaming.Accepted || err != nil {
		t.Fatalf("acknowledged after 3 polls: %s %s %v", out, reason, err)
	}
	hec.AckAfter = 1 << 30
	c.AckTimeout = 100 * time.Millisecond
	out, _, reason, _ := c.Send(context.Background(), d, batch(1))
	if out != streaming.Retry || !strings.Contains(reason, "did not acknowledge") {
		t.Fatalf("never acknowledged: %s %s", out, reason)
	}
	if a, again := splunk.Channel("s-1"), splunk.Channel("s-1"); a != again || a == splunk.Channel("s-2") {
		t.Fatal("a stream's channel is not its own and stable")
	}
}

// TestCollectorErrors: a refused token pauses (Refused), a busy collector
// is retried after its Retry-After, an internal error is retried, an
// unknown index is a rejection of the batch; each reason quotes HEC.
func TestCollectorErrors(t *testing.T) {
	hec, c, d := collector(t)
	cfg := *d.Settings.(*splunk.Config)
	cfg.Token = "87654321-9abc-def0-1234-56789abcdef0"
	bad := stream.NewDestination(&cfg)
	if out, _, reason, _ := c.Send(context.Background(), bad, batch(1)); out != streaming.Refused || !strings.Contains(reason, "Invalid token") {
		t.Fatalf("a wrong token: %s %s", out, reason)
	}
	hec.Fail(splunkhec.Busy("5"), splunkhec.Internal, func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"text":"Incorrect index","code":7}`))
	})
	if out, wait, reason, _ := c.Send(context.Background(), d, batch(1)); out != streaming.Retry || wait != 5*time.Second || !strings.Contains(reason, "busy") {
		t.Fatalf("busy: %s %s %s", out, wait, reason)
	}
	if out, _, _, _ := c.Send(context.Background(), d, batch(1)); out != streaming.Retry {
		t.Fatalf("an internal error: %s", out)
	}
	if out, _, reason, _ := c.Send(context.Background(), d, batch(1)); out != streaming.Rejected || !strings.Contains(reason, "Incorrect index") {
		t.Fatalf("an unknown index: %s %s", out, reason)
	}
	if len(hec.Indexed()) != 0 {
		t.Fatalf("indexed %d events through errors", len(hec.Indexed()))
	}
}
