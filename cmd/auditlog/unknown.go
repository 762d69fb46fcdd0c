package main

import (
	"fmt"
	"github.com/auditlog/auditlog/internal/didyoumean"
	"os"
	"sort"
	"strings"
)

// environ lists the process environment; tests replace it.
var environ = os.Environ

// notOptions are AUDITLOG_* variables read by the scripts and the tests,
// not by the program: never reported as unknown.
var notOptions = []string{"AUDITLOG_TEST_", "AUDITLOG_CACHE_DIR", "AUDITLOG_SERVICES_DIR", "AUDITLOG_ES_VERSION",
	"AUDITLOG_KAFKA_VERSION", "AUDITLOG_VERSITYGW_VERSION", "AUDITLOG_SERVICES_TIMEOUT", "AUDITLOG_SCHEMATHESIS_VERSION"}

// knownVars is every variable any command reads.
func knownVars() map[string]bool {
	known := map[string]bool{}
	for _, cmd := range []string{"serve", "index"} {
		var c Config
		b := newBinder(cmd, func(string) string { return "" }, nil)
		bindServer(cmd, b, &c)
		for _, o := range b.options {
			known[o.env] = true
		}
	}
	return known
}

// unknownVars reports each AUDITLOG_* variable of env that no command
// reads, with the closest known name: a misspelt variable is otherwise
// silently ignored and its default used.
func unknownVars(env []string) []string {
	known := knownVars()
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
next:
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "AUDITLOG_") || known[name] {
			continue
		}
		for _, p := range notOptions {
			if strings.HasPrefix(name, p) {
				continue next
			}
		}
		best, _ := didyoumean.Closest(name, names)
		out = append(out, fmt.Sprintf("%s is not a known variable (did you mean %s?)", name, best))
	}
	sort.Strings(out)
	return out
}
