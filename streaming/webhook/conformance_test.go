package webhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/internal/testkit/hookrecv"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// TestWebhookConformance runs the destinations' suite against a receiver
// that checks each request's signature.
func TestWebhookConformance(t *testing.T) {
	const secret = "a-webhook-signing-key-of-32-bytes!"
	desttest.Run(t, desttest.Kind{Big: 2500, Start: func(t *testing.T, allowPrivate bool) desttest.Target {
		s := hookrecv.Start(secret)
		t.Cleanup(s.Close)
		c := webhook.NewClient(allowPrivate, 10*time.Second)
		c.HTTP.Transport.(*http.Transport).TLSClientConfig = s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		d := stream.NewDestination(&webhook.Config{URL: s.URL + "/audit", Secret: secret})
		refused := stream.NewDestination(&webhook.Config{URL: s.URL + "/audit", Secret: strings.Repeat("x", 32)})
		return desttest.Target{Dest: c, Config: d, Refused: refused, Fail: s.Fail, Held: func() []uint64 {
			var out []uint64
			for _, e := range s.Held() {
				out = append(out, e.LeafIndex)
			}
			return out
		}}
	}})
}
