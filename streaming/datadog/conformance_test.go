package datadog_test

import (
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/ddintake"
	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/streaming/datadog"
)

// TestDatadogConformance runs the destinations' suite against the logs
// intake, which takes at most 1,000 items and 5 MB a request.
func TestDatadogConformance(t *testing.T) {
	desttest.Run(t, desttest.Kind{Big: 2500, Start: func(t *testing.T, allowPrivate bool) desttest.Target {
		s := ddintake.Start(key)
		t.Cleanup(s.Close)
		var c *datadog.Client
		if allowPrivate {
			c = client(s)
		} else {
			c = datadog.NewClient(false, 0)
		}
		d := stream.NewDestination(&datadog.Config{URL: s.URL + "/api/v2/logs", Token: key})
		refused := stream.NewDestination(&datadog.Config{URL: s.URL + "/api/v2/logs", Token: strings.Repeat("f", 32)})
		return desttest.Target{Dest: c, Config: d, Refused: refused, Fail: s.Fail, Held: func() []uint64 {
			items, _ := s.Items()
			var out []uint64
			for _, it := range items {
				out = append(out, uint64(it["leaf_index"].(float64)))
			}
			return out
		}}
	}})
}
