package sentinel_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/azmonitor"
	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/streaming/sentinel"
)

// TestSentinelConformance runs the destinations' suite against Azure
// Monitor's Logs Ingestion API (calls of at most 1 MB) and Entra ID's
// token endpoint. A 404 (no such rule) pauses the stream: the
// configuration is wrong, not the batch.
func TestSentinelConformance(t *testing.T) {
	desttest.Run(t, desttest.Kind{Big: 2000, Refuses: []int{404}, Start: func(t *testing.T, allowPrivate bool) desttest.Target {
		s := azmonitor.Start(tenant, client, secret, dcr, "Custom-AuditLog")
		t.Cleanup(s.Close)
		c := sentinel.NewClient(allowPrivate, 10*time.Second, s.URL, sentinel.DefaultScope)
		c.HTTP.Transport.(*http.Transport).TLSClientConfig = s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		d := stream.NewDestination(&sentinel.Config{URL: s.URL, DCR: dcr, StreamName: "Custom-AuditLog", AzureTenant: tenant, ClientID: client, Secret: secret})
		refused := stream.NewDestination(&sentinel.Config{URL: s.URL, DCR: dcr, StreamName: "Custom-AuditLog", AzureTenant: tenant, ClientID: client,
			Secret: strings.Repeat("x", 40)})
		return desttest.Target{Dest: c, Config: d, Refused: refused, Fail: s.Fail, Held: func() []uint64 {
			var out []uint64
			for _, r := range s.Rows() {
				out = append(out, uint64(r["LeafIndex"].(float64)))
			}
			return out
		}}
	}})
}
