package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// everyCommand is every command and subcommand that takes flags, in the
// order docs/commands.md lists them.
var everyCommand = [][]string{{"serve"}, {"index"}, {"stream"}, {"stream", "check"}, {"token"},
	{"tenant", "list"}, {"tenant", "show"}, {"tenant", "promote"}, {"tenant", "set-plan"}, {"tenant", "periodic"},
	{"gen"}, {"backup"}, {"healthcheck"}, {"export-periodic"}, {"log", "verify"}, {"witness"}, {"verify"}}

// TestCommandsReference (issue 57): docs/commands.md lists each command's
// own flags (those without an AUDITLOG_* variable; the variables are in
// docs/configuration.md, by group), rendered from the flag tables the
// commands bind, as their --help prints them, so the page cannot drift
// from the binary. AUDITLOG_UPDATE_DOCS=1 writes it again.
func TestCommandsReference(t *testing.T) {
	var doc strings.Builder
	for _, args := range everyCommand {
		name := "auditlog " + strings.Join(args, " ")
		b := binderOf(t, args)
		var rows []string
		b.fs.VisitAll(func(f *flag.Flag) {
			if slices.ContainsFunc(b.options, func(o option) bool { return o.flag == f.Name }) {
				return
			}
			arg, usage := flag.UnquoteUsage(f)
			rows = append(rows, fmt.Sprintf("| `--%s` | %s | %s |", strings.TrimSpace(f.Name+" "+arg),
				code(strings.TrimSuffix(strings.TrimPrefix(defaultOf(f, false), " ["), "]")), cell(usage)))
		})
		var groups []string
		for _, s := range allSections() {
			if slices.ContainsFunc(b.options, func(o option) bool { return sectionOf(o.env) == s }) {
				groups = append(groups, s)
			}
		}
		fmt.Fprintf(&doc, "\n### `%s`\n\n", name)
		if len(rows) > 0 {
			fmt.Fprintf(&doc, "| Flag | Default | Meaning |\n|---|---|---|\n%s\n\n", strings.Join(rows, "\n"))
		} else {
			doc.WriteString("No flag of its own.\n\n")
		}
		if len(groups) > 0 {
			fmt.Fprintf(&doc, "Settings (a flag or an `AUDITLOG_*` variable each, in [configuration.md](configuration.md)): %s.\n", strings.Join(groups, ", "))
		}
	}
	writeGenerated(t, "../../docs/commands.md", "TestCommandsReference", doc.String())
}
