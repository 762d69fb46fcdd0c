package api_test

// The API decodes and checks streams of every kind the service has:
// each kind registers itself when its package is imported (as
// cmd/auditlog imports them).
import (
	_ "github.com/auditlog/auditlog/streaming/datadog"
	_ "github.com/auditlog/auditlog/streaming/s3stream"
	_ "github.com/auditlog/auditlog/streaming/sentinel"
	_ "github.com/auditlog/auditlog/streaming/splunk"
	_ "github.com/auditlog/auditlog/streaming/webhook"
)
