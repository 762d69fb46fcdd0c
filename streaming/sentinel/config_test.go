package sentinel_test

import (
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/desttest"
)

// TestSentinelConfiguration: a Sentinel destination's Azure forms: a
// Logs Ingestion endpoint, a rule's immutable id, a Custom- stream, GUIDs
// for the Entra ID tenant and application, and a client secret.
func TestSentinelConfiguration(t *testing.T) {
	az := func(url, dcr, stream, tenant, client, secret string) string {
		return `{"kind":"sentinel","url":"` + url + `","dcr":"` + dcr + `","streamName":"` + stream + `","azureTenant":"` + tenant +
			`","clientId":"` + client + `","secret":"` + secret + `"}`
	}
	const (
		url    = "https://audit-dce-a1b2.westeurope-1.ingest.monitor.azure.com"
		dcr    = "dcr-0123456789abcdef0123456789abcdef"
		tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
		client = "3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b"
		secret = "Xy8Q~abcdefghijklmnopqrstuvwxyz0123456789"
	)
	desttest.CheckConfigs(t, []desttest.ConfigCase{
		{Name: "Sentinel", JSON: az(url, dcr, "Custom-AuditLog", tenant, client, secret)},
		{Name: "Azure Government", JSON: az("https://dce-a1b2.usgovvirginia-1.ingest.monitor.azure.us", dcr, "Custom-AuditLog", tenant, client, secret)},
		{Name: "any https host", JSON: az("https://dce.ingest.monitor.azure.com.attacker.example", dcr, "Custom-AuditLog", tenant, client, secret), Field: "destination.url"},
		{Name: "a rule that is no rule", JSON: az(url, "my-rule", "Custom-AuditLog", tenant, client, secret), Field: "destination.dcr"},
		{Name: "a stream not Custom-", JSON: az(url, dcr, "Microsoft-Syslog", tenant, client, secret), Field: "destination.streamName"},
		{Name: "a tenant that is no GUID", JSON: az(url, dcr, "Custom-AuditLog", "contoso.onmicrosoft.com", client, secret), Field: "destination.azureTenant"},
		{Name: "a client that is no GUID", JSON: az(url, dcr, "Custom-AuditLog", tenant, "app", secret), Field: "destination.clientId"},
		{Name: "no secret", JSON: az(url, dcr, "Custom-AuditLog", tenant, client, ""), Field: "destination.secret"},
		{Name: "a secret too long", JSON: az(url, dcr, "Custom-AuditLog", tenant, client, strings.Repeat("x", 257)), Field: "destination.secret"},
		{Name: "a token on Sentinel", JSON: strings.Replace(az(url, dcr, "Custom-AuditLog", tenant, client, secret), `"kind"`, `"token":"t","kind"`, 1), Field: "destination.token"},
	})
}
