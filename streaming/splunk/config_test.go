package splunk_test

import (
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/desttest"
)

// TestSplunkConfiguration: a HEC destination's own rules, and the members
// of other kinds it refuses by name.
func TestSplunkConfiguration(t *testing.T) {
	const hec = `"kind":"splunk_hec","url":"https://hec.example.com:8088","token":"12345678-9abc-def0-1234-56789abcdef0"`
	desttest.CheckConfigs(t, []desttest.ConfigCase{
		{Name: "Splunk", JSON: `{` + hec + `,"index":"audit_acme"}`},
		{Name: "no index", JSON: `{` + hec + `}`},
		{Name: "a token that is no GUID", JSON: `{"kind":"splunk_hec","url":"https://hec.example.com:8088","token":"secret"}`, Field: "destination.token"},
		{Name: "no token", JSON: `{"kind":"splunk_hec","url":"https://hec.example.com:8088"}`, Field: "destination.token"},
		{Name: "an index with capitals", JSON: `{` + hec + `,"index":"Audit"}`, Field: "destination.index"},
		{Name: "headers on Splunk", JSON: `{` + hec + `,"headers":{"X-A":"b"}}`, Field: "destination.headers"},
		{Name: "a webhook secret on Splunk", JSON: `{` + hec + `,"secret":"ssssssssssssssssssssssssssssssss"}`, Field: "destination.secret"},
		{Name: "a private collector", JSON: `{"kind":"splunk_hec","url":"https://10.0.0.8:8088","token":"12345678-9abc-def0-1234-56789abcdef0"}`, Field: "destination.url"},
	})
}
