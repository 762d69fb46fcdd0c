package main

import (
	"fmt"
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
		best, bestD := "", 1<<30
		for _, k := range names {
			if d := editDistance(name, k); d < bestD {
				best, bestD = k, d
			}
		}
		out = append(out, fmt.Sprintf("%s is not a known variable (did you mean %s?)", name, best))
	}
	sort.Strings(out)
	return out
}

// editDistance is the Levenshtein distance of a and b, written here
// rather than imported: 15 lines for a start-up message.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
