package main

import (
	"fmt"
	"io"
	"strings"
)

// sections orders the options of serve and index in their --help, each
// by the prefixes of its variables (the first match wins).
var sections = []struct {
	name     string
	prefixes []string
}{
	{"HTTP", []string{"AUDITLOG_HTTP_", "AUDITLOG_REQUEST_", "AUDITLOG_RATE_", "AUDITLOG_MAX_IN_FLIGHT", "AUDITLOG_TRUSTED_", "AUDITLOG_CURSOR_", "AUDITLOG_SHUTDOWN_"}},
	{"Auth", []string{"AUDITLOG_JWT_", "AUDITLOG_INGEST_"}},
	{"Store", []string{"AUDITLOG_STORE", "AUDITLOG_DATA_", "AUDITLOG_SEED", "AUDITLOG_DEFAULT_PLAN", "AUDITLOG_LIFECYCLE_"}},
	{"Elasticsearch", []string{"AUDITLOG_ES_"}},
	{"Kafka", []string{"AUDITLOG_KAFKA_", "AUDITLOG_BATCH_"}},
	{"Sensitive changes", []string{"AUDITLOG_SENSITIVE_", "AUDITLOG_SECRET_", "AUDITLOG_MASK_"}},
	{"Restore", []string{"AUDITLOG_RESTORE_"}},
	{"Periodic export", []string{"AUDITLOG_PERIODIC_"}},
	{"Panel", []string{"AUDITLOG_PANEL_"}},
	{"Export", []string{"AUDITLOG_EXPORT_", "AUDITLOG_PUBLIC_URL"}},
	{"S3", []string{"AUDITLOG_S3_"}},
	{"SMTP", []string{"AUDITLOG_SMTP_"}},
	{"Logging", []string{"AUDITLOG_LOG_"}},
}

func sectionOf(env string) string {
	for _, s := range sections {
		for _, p := range s.prefixes {
			if strings.HasPrefix(env, p) {
				return s.name
			}
		}
	}
	return "Other"
}

// wantsHelp reports whether args ask for help.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "help":
			return true
		}
	}
	return false
}

// printHelp writes the options of cmd grouped by section, one line each:
// the flag, its variable, its default (secrets never shown) and what it
// does.
func (b *binder) printHelp(w io.Writer, cmd string) {
	fmt.Fprintf(w, "Usage: auditlog %s [flags]\n\nEach flag is also read from its AUDITLOG_* variable; a flag wins over its variable.\n", cmd)
	for _, s := range append(sections, struct {
		name     string
		prefixes []string
	}{name: "Other"}) {
		first := true
		for _, o := range b.options {
			if sectionOf(o.env) != s.name {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s:\n", s.name)
				first = false
			}
			def := ""
			if f := b.fs.Lookup(o.flag); f != nil && f.DefValue != "" && !o.secret {
				def = " [" + f.DefValue + "]"
			}
			fmt.Fprintf(w, "  -%-26s %-34s %s%s\n", o.flag, o.env, o.usage, def)
		}
	}
}
