package s3stream

import (
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/stream"
)

// Kind is S3's name in a stream's destination.
const Kind = "s3"

func init() {
	stream.Register(func() stream.Settings { return new(Config) })
}

// Config is an S3 destination: a bucket on the deployment's S3 server
// (AUDITLOG_S3_ENDPOINT; a deployment without one refuses the kind,
// stream.Rules.Off) and the objects' key prefix (DefaultPrefix when
// empty). It holds no secret: the deployment's credentials write.
type Config struct {
	Bucket string `json:"bucket,omitempty"`
	Prefix string `json:"prefix,omitempty"`
}

// Kind implements stream.Settings.
func (*Config) Kind() string { return Kind }

// Check implements stream.Settings: a bucket name S3 takes and a prefix
// of safe key segments.
func (c *Config) Check(fe *audit.FieldErrors, _ stream.Rules) {
	if !blob.ValidBucket(c.Bucket) {
		fe.Add("destination.bucket", "%s", blob.BucketRule)
	}
	if c.Prefix != "" && !blob.ValidPrefix(c.Prefix) {
		fe.Add("destination.prefix", "%s", blob.PrefixRule)
	}
}

// Redacted implements stream.Settings: nothing is secret.
func (c *Config) Redacted() stream.Settings { r := *c; return &r }

// Keep implements stream.Settings: nothing is secret.
func (*Config) Keep(stream.Settings) {}

// Endpoint implements stream.Settings.
func (c *Config) Endpoint() string { return c.Bucket + "/" + c.KeyPrefix() }

// KeyPrefix is the key prefix of the stream's objects.
func (c *Config) KeyPrefix() string {
	if c.Prefix == "" {
		return DefaultPrefix
	}
	return c.Prefix
}

// Gathers implements streaming.Gatherer: each batch is an object.
func (*Destination) Gathers() bool { return true }
