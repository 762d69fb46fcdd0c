package datadog_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/streaming/datadog"
)

// TestDatadogConfiguration: a Datadog destination's own rules: an API
// key, and a host under Datadog's sites (or the deployment's own
// domains, which replace them).
func TestDatadogConfiguration(t *testing.T) {
	const key = `"token":"0123456789abcdef0123456789abcdef"`
	dd := func(url string) string { return `{"kind":"datadog","url":"` + url + `",` + key + `}` }
	sovereign := stream.Rules{Intake: map[string][]string{datadog.Kind: {"dd.sovereign.example"}}}
	desttest.CheckConfigs(t, []desttest.ConfigCase{
		{Name: "Datadog EU", JSON: dd("https://http-intake.logs.datadoghq.eu/api/v2/logs")},
		{Name: "Datadog US5", JSON: dd("https://http-intake.logs.us5.datadoghq.com/api/v2/logs")},
		{Name: "Datadog US1-FED", JSON: dd("https://http-intake.logs.ddog-gov.com/api/v2/logs")},
		{Name: "a key that is no key", JSON: `{"kind":"datadog","url":"https://http-intake.logs.datadoghq.eu/api/v2/logs","token":"dd-key"}`, Field: "destination.token"},
		{Name: "over http", JSON: dd("http://http-intake.logs.datadoghq.eu/api/v2/logs"), Field: "destination.url"},
		{Name: "any https host", JSON: dd("https://logs.attacker.example/api/v2/logs"), Field: "destination.url"},
		{Name: "a look-alike", JSON: dd("https://http-intake.logs.notdatadoghq.com/"), Field: "destination.url"},
		{Name: "a Splunk index on Datadog", JSON: `{"kind":"datadog","url":"https://http-intake.logs.datadoghq.eu/api/v2/logs",` + key + `,"index":"main"}`, Field: "destination.index"},
		{Name: "a sovereign site", JSON: dd("https://intake.logs.dd.sovereign.example/api/v2/logs"), Rules: sovereign},
		{Name: "a sovereign site by default", JSON: dd("https://intake.logs.dd.sovereign.example/api/v2/logs"), Field: "destination.url"},
		{Name: "the configured domains replace Datadog's", JSON: dd("https://http-intake.logs.datadoghq.com/api/v2/logs"), Rules: sovereign, Field: "destination.url"},
	})
}
