package datadog

import (
	"regexp"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// Kind is Datadog's name in a stream's destination.
const Kind = "datadog"

func init() {
	stream.Register(func() stream.Settings { return new(Config) })
}

// IntakeDomains are Datadog's sites (US1, US3, US5, AP1 and AP2 are
// under datadoghq.com; EU; US1-FED): a destination's host must be under
// one, unless the deployment configures its own
// (AUDITLOG_STREAM_DATADOG_DOMAINS, stream.Rules.Intake).
var IntakeDomains = []string{"datadoghq.com", "datadoghq.eu", "ddog-gov.com"}

// Config is a Datadog destination: the logs intake's URL and the API
// key (secret).
type Config struct {
	URL   string `json:"url,omitempty"`
	Token string `json:"token,omitempty"`
}

var apiKey = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// Kind implements stream.Settings.
func (*Config) Kind() string { return Kind }

// Check implements stream.Settings: an https endpoint under Datadog's
// intake domains, and an API key of 32 hexadecimal digits.
func (c *Config) Check(fe *audit.FieldErrors, rules stream.Rules) {
	stream.CheckEndpoint(fe, c.URL, rules)
	stream.CheckIntake(fe, c.URL, rules, "Datadog", Kind, IntakeDomains)
	if !apiKey.MatchString(c.Token) {
		fe.Add("destination.token", "want the Datadog API key: 32 hexadecimal digits")
	}
}

// Redacted implements stream.Settings: the API key masked.
func (c *Config) Redacted() stream.Settings {
	r := *c
	r.Token = stream.Mask(c.Token)
	return &r
}

// Keep implements stream.Settings: a key sent back masked is the
// stored one.
func (c *Config) Keep(old stream.Settings) {
	if was, ok := old.(*Config); ok {
		c.Token = stream.Kept(c.Token, was.Token)
	}
}

// Endpoint implements stream.Settings.
func (c *Config) Endpoint() string { return c.URL }
