package s3stream_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/internal/testkit/desttest"
	"github.com/auditlog/auditlog/streaming/s3stream"
)

// TestS3Configuration: an S3 destination's bucket and prefix, taken
// where the deployment has an S3 server for streams and refused, naming
// the kind, where it has none.
func TestS3Configuration(t *testing.T) {
	noServer := stream.Rules{Off: map[string]string{s3stream.Kind: "this deployment has no S3 server for streams (AUDITLOG_S3_ENDPOINT)"}}
	desttest.CheckConfigs(t, []desttest.ConfigCase{
		{Name: "S3", JSON: `{"kind":"s3","bucket":"acme-audit","prefix":"streams/acme"}`},
		{Name: "no prefix", JSON: `{"kind":"s3","bucket":"acme-audit"}`},
		{Name: "without an S3 server", JSON: `{"kind":"s3","bucket":"acme-audit"}`, Rules: noServer, Field: "destination.kind"},
		{Name: "a bad bucket", JSON: `{"kind":"s3","bucket":"Acme_Audit"}`, Field: "destination.bucket"},
		{Name: "no bucket", JSON: `{"kind":"s3"}`, Field: "destination.bucket"},
		{Name: "a bad prefix", JSON: `{"kind":"s3","bucket":"acme-audit","prefix":"/abs/../x"}`, Field: "destination.prefix"},
		{Name: "a URL on S3", JSON: `{"kind":"s3","bucket":"acme-audit","url":"https://s3.example.com"}`, Field: "destination.url"},
		{Name: "headers on S3", JSON: `{"kind":"s3","bucket":"acme-audit","headers":{"A":"b"}}`, Field: "destination.headers"},
	})
}
