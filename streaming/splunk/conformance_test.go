package splunk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/internal/testkit/splunkhec"
	"github.com/auditlog/auditlog/streaming/splunk"
)

// TestSplunkConformance runs the destinations' suite against the
// collector, with and without indexer acknowledgment (a batch is then
// accepted only once the collector acknowledged it).
func TestSplunkConformance(t *testing.T) {
	for _, ack := range []bool{false, true} {
		name := map[bool]string{false: "NoAck", true: "IndexerAck"}[ack]
		t.Run(name, func(t *testing.T) {
			desttest.Run(t, desttest.Kind{Big: 2500, Start: func(t *testing.T, allowPrivate bool) desttest.Target {
				hec := splunkhec.Start(token)
				hec.Ack, hec.AckAfter = ack, 2
				t.Cleanup(hec.Close)
				c := splunk.NewClient(allowPrivate, 10*time.Second)
				c.HTTP.Transport.(*http.Transport).TLSClientConfig = hec.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
				c.AckPoll = 10 * time.Millisecond
				d := stream.NewDestination(&splunk.Config{URL: hec.URL, Token: token, Index: "audit"})
				refused := stream.NewDestination(&splunk.Config{URL: hec.URL, Token: "00000000-0000-0000-0000-000000000000", Index: "audit"})
				return desttest.Target{Dest: c, Config: d, Refused: refused, Fail: hec.Fail, Held: func() []uint64 {
					var out []uint64
					for _, e := range hec.Indexed() {
						out = append(out, uint64(e.Fields["leaf_index"].(float64)))
					}
					return out
				}}
			}})
		})
	}
}
