package splunk

import (
	"regexp"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// Kind is Splunk HEC's name in a stream's destination.
const Kind = "splunk_hec"

func init() {
	stream.Register(func() stream.Settings { return new(Config) })
}

// Config is a Splunk HTTP Event Collector destination: the collector's
// https base URL, its token (a GUID, secret) and the index to write to
// (optional: the token's default).
type Config struct {
	URL   string `json:"url,omitempty"`
	Token string `json:"token,omitempty"`
	Index string `json:"index,omitempty"`
}

var indexName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,79}$`)

// Kind implements stream.Settings.
func (*Config) Kind() string { return Kind }

// Check implements stream.Settings: an https endpoint the deployment may
// reach, a GUID token, and a Splunk index name when one is given.
func (c *Config) Check(fe *audit.FieldErrors, rules stream.Rules) {
	stream.CheckEndpoint(fe, c.URL, rules)
	if !audit.ValidUUID(c.Token) {
		fe.Add("destination.token", "want the HTTP Event Collector token, a GUID like 12345678-9abc-def0-1234-56789abcdef0")
	}
	if c.Index != "" && !indexName.MatchString(c.Index) {
		fe.Add("destination.index", "want a Splunk index name: 1 to 80 of a-z 0-9 _ -, starting with a letter or digit")
	}
}

// Redacted implements stream.Settings: the token masked.
func (c *Config) Redacted() stream.Settings {
	r := *c
	r.Token = stream.Mask(c.Token)
	return &r
}

// Keep implements stream.Settings: a token sent back masked is the
// stored one.
func (c *Config) Keep(old stream.Settings) {
	if was, ok := old.(*Config); ok {
		c.Token = stream.Kept(c.Token, was.Token)
	}
}

// Endpoint implements stream.Settings.
func (c *Config) Endpoint() string { return c.URL }
