package datadog_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/batchtest"
	"github.com/auditlog/auditlog/internal/testkit/ddintake"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/datadog"
)

const key = "0123456789abcdef0123456789abcdef"

func client(s *ddintake.Server) *datadog.Client {
	c := datadog.NewClient(true, 10*time.Second)
	c.HTTP.Transport.(*http.Transport).TLSClientConfig = s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return c
}

// TestDatadogTakesABatchInRequestsWithinItsLimits: a batch of 2,500
// events (3 MB of them big) goes in requests of at most 1,000 items and
// 5 MB, the intake's limits; every event arrives once, in order, with its
// tenant, stream, leaf index, time and tags.
func TestDatadogTakesABatchInRequestsWithinItsLimits(t *testing.T) {
	s := ddintake.Start(key)
	defer s.Close()
	b := batchtest.Big("t-1", 40, 2500)
	o, _, reason, err := client(s).Send(context.Background(), stream.NewDestination(&datadog.Config{URL: s.URL + "/api/v2/logs", Token: key}), b)
	if o != streaming.Accepted || err != nil {
		t.Fatalf("%s %s %v", o, reason, err)
	}
	items, requests := s.Items()
	if len(items) != 2500 || requests < 3 {
		t.Fatalf("%d items in %d requests", len(items), requests)
	}
	for i, it := range items {
		if it["leaf_index"] != float64(40+i) || it["tenant_id"] != "t-1" || it["stream_id"] != "s-1" || it["ddsource"] != "auditlog" ||
			it["timestamp"] != float64(1795687202250+i) || it["ddtags"] != "tenant_id:t-1,stream_id:s-1,format:event" ||
			it["message"] != fmt.Sprintf("delete agent a-%d", i) || it["event"].(map[string]any)["id"] != fmt.Sprintf("evt_%d", i) {
			t.Fatalf("item %d: %v", i, it)
		}
	}
}

// TestDatadogAnswers: a wrong API key is refused (403: the stream
// pauses), a 429 is retried after its Retry-After, a 500 is retried; an
// empty batch sends nothing.
func TestDatadogAnswers(t *testing.T) {
	s := ddintake.Start(key)
	defer s.Close()
	c := client(s)
	d := stream.NewDestination(&datadog.Config{URL: s.URL + "/api/v2/logs", Token: key})
	ctx := context.Background()
	bad := stream.NewDestination(&datadog.Config{URL: s.URL + "/api/v2/logs", Token: strings.Repeat("f", 32)})
	if o, _, reason, _ := c.Send(ctx, bad, batchtest.Big("t", 0, 3)); o != streaming.Refused || !strings.Contains(reason, "403") {
		t.Fatalf("a wrong key: %s %s", o, reason)
	}
	s.Fail(ddintake.TooMany("7"), func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
	if o, wait, _, _ := c.Send(ctx, d, batchtest.Big("t", 0, 3)); o != streaming.Retry || wait != 7*time.Second {
		t.Fatalf("429: %s %s", o, wait)
	}
	if o, _, _, _ := c.Send(ctx, d, batchtest.Big("t", 0, 3)); o != streaming.Retry {
		t.Fatalf("500: %s", o)
	}
	if o, _, _, err := c.Send(ctx, d, streaming.Batch{TenantID: "t", From: 3, To: 9}); o != streaming.Accepted || err != nil {
		t.Fatalf("an empty batch: %s %v", o, err)
	}
	if items, _ := s.Items(); len(items) != 0 {
		t.Fatalf("%d items taken", len(items))
	}
}
