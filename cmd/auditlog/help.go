package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// sections orders the options of every command's --help, each by the
// prefixes of its variables (the first match wins).
var sections = []struct {
	name     string
	prefixes []string
}{
	{"TLS", []string{"AUDITLOG_HTTP_TLS_"}},
	{"HTTP", []string{"AUDITLOG_HTTP_", "AUDITLOG_REQUEST_", "AUDITLOG_RATE_", "AUDITLOG_MAX_IN_FLIGHT", "AUDITLOG_TRUSTED_", "AUDITLOG_CURSOR_", "AUDITLOG_SHUTDOWN_"}},
	{"Token claims", []string{"AUDITLOG_JWT_CLAIM_"}},
	{"Auth", []string{"AUDITLOG_JWT_", "AUDITLOG_INGEST_", "AUDITLOG_TOKEN"}},
	{"Store", []string{"AUDITLOG_STORE", "AUDITLOG_DATA_", "AUDITLOG_SEED", "AUDITLOG_DEFAULT_PLAN", "AUDITLOG_LIFECYCLE_", "AUDITLOG_HOLD_"}},
	{"Keys", []string{"AUDITLOG_ACCEPT_", "AUDITLOG_MODE"}},
	{"Elasticsearch", []string{"AUDITLOG_ES_"}},
	{"Kafka", []string{"AUDITLOG_KAFKA_", "AUDITLOG_BATCH_"}},
	{"Sensitive changes", []string{"AUDITLOG_SENSITIVE_", "AUDITLOG_SECRET_", "AUDITLOG_MASK_"}},
	{"Restore", []string{"AUDITLOG_RESTORE_"}},
	{"Periodic export", []string{"AUDITLOG_PERIODIC_"}},
	{"Verifiable log", []string{"AUDITLOG_LOG_ORIGIN", "AUDITLOG_LOG_SEAL", "AUDITLOG_LOG_WITNESSES", "AUDITLOG_VERIFY_STATE"}},
	{"Witness", []string{"AUDITLOG_WITNESS_"}},
	{"Streams", []string{"AUDITLOG_STREAM_"}},
	{"Panel", []string{"AUDITLOG_PANEL_"}},
	{"Export", []string{"AUDITLOG_EXPORT_", "AUDITLOG_PUBLIC_URL"}},
	{"S3", []string{"AUDITLOG_S3_"}},
	{"SMTP", []string{"AUDITLOG_SMTP_"}},
	{"Logging", []string{"AUDITLOG_LOG_", "AUDITLOG_CPU_PROFILE"}},
}

// allSections is sections followed by "Other", which takes what matches
// none of them.
func allSections() []string {
	out := make([]string, 0, len(sections)+1)
	for _, s := range sections {
		out = append(out, s.name)
	}
	return append(out, "Other")
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

// topicOf is the name --help takes for a section ("Periodic export":
// periodic-export).
func topicOf(section string) string { return strings.ReplaceAll(strings.ToLower(section), " ", "-") }

// wantsHelp reports whether args ask for help.
func wantsHelp(args []string) bool {
	_, ok := helpTopic(args)
	return ok
}

// helpTopic is what args ask help on: "" for the command's page, "all"
// for every section, or a section's topic (--help elasticsearch).
func helpTopic(args []string) (string, bool) {
	for i, a := range args {
		switch a {
		case "-h", "-help", "--help", "help":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				return strings.ToLower(args[i+1]), true
			}
			return "", true
		}
	}
	return "", false
}

// onDescribe, when set (by the test that writes docs/configuration.md
// from the commands' own flag tables), sees every binder described.
var onDescribe func(*binder)

// describe sets what the command's --help prints (on out) before its
// flags, and the sections it lists flag by flag; every other section is
// one line, listed whole by --help <section> or --help all, so that a
// command's help is one screen and one that most run on the embedded
// store does not open with ten Elasticsearch flags.
func (b *binder) describe(out io.Writer, usage string, primary ...string) {
	if onDescribe != nil {
		onDescribe(b)
	}
	b.helpOut, b.helpUsage, b.primary = out, usage, primary
	b.fs.Usage = func() { b.printHelp(b.fs.Output(), "") }
}

// printHelp writes the usage, the command's own flags, then its options
// by section, one line each: the flag, its variable, what it does and
// its default (secrets never shown).
func (b *binder) printHelp(w io.Writer, topic string) {
	fmt.Fprint(w, b.helpUsage)
	if known := b.topics(); topic != "" && topic != "all" && !slices.Contains(known, topic) {
		fmt.Fprintf(w, "\nNo group named %q here: --help takes all or one of %s.\n", topic, strings.Join(known, ", "))
		topic = ""
	}
	own := []string{}
	b.fs.VisitAll(func(f *flag.Flag) {
		if !slices.ContainsFunc(b.options, func(o option) bool { return o.flag == f.Name }) {
			name, usage := flag.UnquoteUsage(f)
			own = append(own, fmt.Sprintf("  -%-26s %s%s", strings.TrimSpace(f.Name+" "+name), usage, defaultOf(f, false)))
		}
	})
	if len(own) > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s\n", strings.Join(own, "\n"))
	}
	if len(b.options) > 0 {
		fmt.Fprintf(w, "\nEach flag below is also read from its AUDITLOG_* variable; a flag wins over its variable.\n")
	}
	var folded []string
	for _, name := range allSections() {
		var lines, flags []string
		for _, o := range b.options {
			if sectionOf(o.env) == name {
				lines = append(lines, fmt.Sprintf("  -%-26s %-34s %s%s", o.flag, o.env, o.usage, defaultOf(b.fs.Lookup(o.flag), o.secret)))
				flags = append(flags, "-"+o.flag)
			}
		}
		switch {
		case len(lines) == 0:
		case topic == "all" || topic == topicOf(name) || topic == "" && (b.primary == nil || slices.Contains(b.primary, name) || name == "Other"):
			fmt.Fprintf(w, "\n%s:\n%s\n", name, strings.Join(lines, "\n"))
		default:
			folded = append(folded, fmt.Sprintf("  %-18s %s", topicOf(name), shortList(flags)))
		}
	}
	if len(folded) > 0 && topic == "" {
		fmt.Fprintf(w, "\nMore settings, by group (--help <group> lists one, --help all every one):\n%s\n", strings.Join(folded, "\n"))
	}
}

// topics are the --help names of the sections b has options in.
func (b *binder) topics() []string {
	var out []string
	for _, o := range b.options {
		if t := topicOf(sectionOf(o.env)); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// defaultOf is " [default]" for a flag whose default is worth showing.
func defaultOf(f *flag.Flag, secret bool) string {
	if f == nil || secret || f.DefValue == "" || f.DefValue == "false" || f.DefValue == "0" || f.DefValue == "[]" {
		return ""
	}
	return " [" + f.DefValue + "]"
}

// shortList names the first flags of a folded group and counts the rest.
func shortList(flags []string) string {
	if len(flags) <= 3 {
		return strings.Join(flags, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(flags[:3], ", "), len(flags)-3)
}
