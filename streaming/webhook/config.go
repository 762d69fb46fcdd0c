package webhook

import (
	"maps"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// Kind is the webhook's name in a stream's destination.
const Kind = "webhook"

func init() {
	stream.Register(func() stream.Settings { return new(Config) })
}

// Config is a webhook destination: an https endpoint, headers sent with
// every request (their values secret), and the key of the HMAC-SHA256
// signature (made by the service when none is given, and shown once).
type Config struct {
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Secret  string            `json:"secret,omitempty"`
}

// Kind implements stream.Settings.
func (*Config) Kind() string { return Kind }

// Check implements stream.Settings: an https endpoint the deployment
// may reach, headers the service does not write itself, and a key of
// stream.MinStreamSecret to stream.MaxStreamSecret bytes when one is
// given.
func (c *Config) Check(fe *audit.FieldErrors, rules stream.Rules) {
	stream.CheckEndpoint(fe, c.URL, rules)
	stream.CheckHeaders(fe, c.Headers)
	if c.Secret != "" && (len(c.Secret) < stream.MinStreamSecret || len(c.Secret) > stream.MaxStreamSecret) {
		fe.Add("destination.secret", "want %d to %d bytes, or none for one the service makes", stream.MinStreamSecret, stream.MaxStreamSecret)
	}
}

// Redacted implements stream.Settings: the key and the header values
// masked.
func (c *Config) Redacted() stream.Settings {
	r := &Config{URL: c.URL, Secret: stream.Mask(c.Secret)}
	if len(c.Headers) > 0 {
		r.Headers = make(map[string]string, len(c.Headers))
		for k, v := range c.Headers {
			r.Headers[k] = stream.Mask(v)
		}
	}
	return r
}

// Keep implements stream.Settings: a key or a header value sent back
// masked is the stored one, and a webhook sent with no key keeps its
// own (a new one is made only at creation).
func (c *Config) Keep(old stream.Settings) {
	was, ok := old.(*Config)
	if !ok {
		return
	}
	c.Secret = stream.Kept(c.Secret, was.Secret)
	if c.Secret == "" {
		c.Secret = was.Secret
	}
	if c.Headers != nil {
		h := maps.Clone(c.Headers)
		for k, v := range h {
			h[k] = stream.Kept(v, was.Headers[k])
		}
		c.Headers = h
	}
}

// Endpoint implements stream.Settings.
func (c *Config) Endpoint() string { return c.URL }

// SigningKey and SetSigningKey implement stream.KeyMaker.
func (c *Config) SigningKey() string { return c.Secret }

// SetSigningKey sets the signature's key.
func (c *Config) SetSigningKey(key string) { c.Secret = key }
