package sentinel

import (
	"regexp"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// Kind is Sentinel's name in a stream's destination.
const Kind = "sentinel"

func init() {
	stream.Register(func() stream.Settings { return new(Config) })
}

// IntakeDomains are Azure Monitor's Logs Ingestion endpoints (data
// collection endpoints and rules) in Azure, Azure Government and Azure
// China: a destination's host must be under one, unless the deployment
// configures its own (AUDITLOG_STREAM_SENTINEL_DOMAINS,
// stream.Rules.Intake).
var IntakeDomains = []string{"ingest.monitor.azure.com", "ingest.monitor.azure.us", "ingest.monitor.azure.cn"}

// Config is a Sentinel destination: the data collection endpoint (or
// the rule's own ingestion endpoint), the rule's immutable id, the
// stream it declares (Custom-…), and the Entra ID tenant, application
// (client) id and client secret (secret) that may write to it.
type Config struct {
	URL         string `json:"url,omitempty"`
	Secret      string `json:"secret,omitempty"`
	DCR         string `json:"dcr,omitempty"`
	StreamName  string `json:"streamName,omitempty"`
	AzureTenant string `json:"azureTenant,omitempty"`
	ClientID    string `json:"clientId,omitempty"`
}

var (
	dcrID       = regexp.MustCompile(`^dcr-[0-9a-f]{32}$`)
	azureStream = regexp.MustCompile(`^Custom-[A-Za-z0-9_]{1,100}$`)
)

// Kind implements stream.Settings.
func (*Config) Kind() string { return Kind }

// Check implements stream.Settings: an https endpoint under Azure
// Monitor's intake domains, a rule's immutable id, a Custom- stream,
// GUIDs for the Entra ID tenant and application, and a client secret.
func (c *Config) Check(fe *audit.FieldErrors, rules stream.Rules) {
	stream.CheckEndpoint(fe, c.URL, rules)
	stream.CheckIntake(fe, c.URL, rules, "Azure Monitor", Kind, IntakeDomains)
	if !dcrID.MatchString(c.DCR) {
		fe.Add("destination.dcr", "want the data collection rule's immutable id, like dcr-0123456789abcdef0123456789abcdef")
	}
	if !azureStream.MatchString(c.StreamName) {
		fe.Add("destination.streamName", "want the rule's stream, Custom- and 1 to 100 of A-Z a-z 0-9 _")
	}
	if !audit.ValidUUID(c.AzureTenant) {
		fe.Add("destination.azureTenant", "want the Entra ID tenant id, a GUID")
	}
	if !audit.ValidUUID(c.ClientID) {
		fe.Add("destination.clientId", "want the application (client) id, a GUID")
	}
	if len(c.Secret) < stream.MinStreamSecret || len(c.Secret) > stream.MaxStreamSecret || !audit.CleanText(c.Secret) {
		fe.Add("destination.secret", "want the application's client secret, %d to %d bytes", stream.MinStreamSecret, stream.MaxStreamSecret)
	}
}

// Redacted implements stream.Settings: the client secret masked.
func (c *Config) Redacted() stream.Settings {
	r := *c
	r.Secret = stream.Mask(c.Secret)
	return &r
}

// Keep implements stream.Settings: a secret sent back masked is the
// stored one.
func (c *Config) Keep(old stream.Settings) {
	if was, ok := old.(*Config); ok {
		c.Secret = stream.Kept(c.Secret, was.Secret)
	}
}

// Endpoint implements stream.Settings.
func (c *Config) Endpoint() string { return c.URL }
