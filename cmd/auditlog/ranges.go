package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// intRanges and durationRanges are the allowed values of every number and
// duration option, by variable: a value outside is refused at start with
// its variable named (AUDITLOG_EXPORT_WORKERS=0 once started a service
// that never ran an export). The lower bounds refuse what cannot work
// (zero, negative); they stay low enough for the short timings of tests
// and small deployments. Each command checks the options it binds.
var intRanges = map[string][2]int64{
	"AUDITLOG_SEED":                     {0, 10_000_000},
	"AUDITLOG_RATE_LIMIT":               {0, 1_000_000},
	"AUDITLOG_RATE_BURST":               {1, 1_000_000},
	"AUDITLOG_MAX_IN_FLIGHT":            {0, 100_000},
	"AUDITLOG_MAX_IN_FLIGHT_PER_TENANT": {0, 100_000},
	"AUDITLOG_EXPORT_WORKERS":           {1, 64},
	"AUDITLOG_EXPORT_MAX_ACTIVE":        {1, 1000},
	"AUDITLOG_EXPORT_ATTEMPTS":          {1, 20},
	"AUDITLOG_EXPORT_SCAN_PAGE":         {10, 10_000},
	"AUDITLOG_KAFKA_PARTITIONS":         {1, 10_000},
	"AUDITLOG_BATCH_SIZE":               {1, 10_000},
	"AUDITLOG_BATCH_BYTES":              {1 << 10, 64 << 20},
	"AUDITLOG_ES_REPLICAS":              {0, 10},
	"AUDITLOG_ES_PROMOTE_ABOVE":         {0, 1 << 40},
	"AUDITLOG_SMTP_PORT":                {1, 65535},
	"AUDITLOG_WITNESS_QUORUM":           {0, 100},
	"AUDITLOG_STREAM_WORKERS":           {1, 256},
	"AUDITLOG_STREAM_BATCH":             {1, 1000},
}

var durationRanges = map[string][2]time.Duration{
	"AUDITLOG_JWT_JWKS_REFRESH":   {time.Minute, 24 * time.Hour},
	"AUDITLOG_SHUTDOWN_TIMEOUT":   {time.Second, 10 * time.Minute},
	"AUDITLOG_REQUEST_TIMEOUT":    {time.Second, 10 * time.Minute},
	"AUDITLOG_EXPORT_EXPIRY":      {time.Second, 365 * 24 * time.Hour},
	"AUDITLOG_EXPORT_LEASE":       {time.Second, time.Hour},
	"AUDITLOG_EXPORT_POLL":        {10 * time.Millisecond, time.Minute},
	"AUDITLOG_EXPORT_RETRY_DELAY": {10 * time.Millisecond, time.Hour},
	"AUDITLOG_BATCH_LINGER":       {0, 10 * time.Second},
	"AUDITLOG_LIFECYCLE_INTERVAL": {time.Minute, 24 * time.Hour},
	"AUDITLOG_HOLD_RELEASE_GRACE": {0, 366 * 24 * time.Hour},
	// The broker's default group.min.session.timeout.ms is 6s.
	"AUDITLOG_KAFKA_SESSION_TIMEOUT":    {6 * time.Second, 5 * time.Minute},
	"AUDITLOG_KAFKA_HEARTBEAT_INTERVAL": {100 * time.Millisecond, 100 * time.Second},
	"AUDITLOG_KAFKA_REBALANCE_TIMEOUT":  {time.Second, 5 * time.Minute},
	"AUDITLOG_KAFKA_STALL_AFTER":        {10 * time.Second, 24 * time.Hour},
	"AUDITLOG_PERIODIC_SETTLE":          {0, 24 * time.Hour},
	"AUDITLOG_PERIODIC_LATE_HORIZON":    {time.Hour, 366 * 24 * time.Hour},
	"AUDITLOG_PERIODIC_EVERY":           {time.Second, time.Hour},
	"AUDITLOG_PERIODIC_LEASE":           {10 * time.Second, time.Hour},
	"AUDITLOG_LOG_SEAL_EVERY":           {100 * time.Millisecond, time.Minute},
	"AUDITLOG_STREAM_EVERY":             {100 * time.Millisecond, time.Minute},
	"AUDITLOG_STREAM_S3_EVERY":          {100 * time.Millisecond, time.Hour},
	"AUDITLOG_STREAM_LEASE":             {time.Second, time.Hour},
	"AUDITLOG_STREAM_TIMEOUT":           {time.Second, 10 * time.Minute},
}

// choices are the allowed values of every enumerated option.
var choices = map[string][]string{
	"AUDITLOG_STORE":            backendNames(),
	"AUDITLOG_DEFAULT_PLAN":     {"starter", "pro", "enterprise"},
	"AUDITLOG_ES_TENANT_LAYOUT": {"shared", "dedicated"},
	"AUDITLOG_ES_ILM":           {"backstop", "retention", "off"},
	"AUDITLOG_SMTP_STARTTLS":    {"required", "opportunistic", "off"},
	"AUDITLOG_EXPORT_STORE":     {"local", "s3"},
	"AUDITLOG_PERIODIC_STORE":   {"local", "s3"},
	"AUDITLOG_LOG_FORMAT":       {"json", "text"},
	"AUDITLOG_STREAM_RUN":       {"auto", "on", "off"},
	"AUDITLOG_LOG_LEVEL":        {"debug", "info", "warn", "error"},
}

// checkRanges lists, for each option the command bound, a value outside
// its range or choices, naming the variable.
func (b *binder) checkRanges() []string {
	var errs []string
	for _, o := range b.options {
		v := b.fs.Lookup(o.flag).Value.String()
		if r, ok := intRanges[o.env]; ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && (n < r[0] || n > r[1]) {
				errs = append(errs, fmt.Sprintf("%s=%d: want %d to %d", o.env, n, r[0], r[1]))
			}
		}
		if r, ok := durationRanges[o.env]; ok {
			if d, err := time.ParseDuration(v); err == nil && (d < r[0] || d > r[1]) {
				errs = append(errs, fmt.Sprintf("%s=%s: want %s to %s", o.env, d, r[0], r[1]))
			}
		}
		if c := choices[o.env]; c != nil && !slices.Contains(c, v) {
			errs = append(errs, fmt.Sprintf("%s=%q: want %s", o.env, v, strings.Join(c, ", ")))
		}
	}
	return errs
}
