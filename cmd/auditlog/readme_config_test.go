package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEConfigurationTableMatchesTheCommands: the README's table of
// variables and the options serve and index bind are the same set, each
// variable with its flag; a variable added to one and not the other
// fails.
func TestREADMEConfigurationTableMatchesTheCommands(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	start := strings.Index(s, "\n## Configuration\n")
	if start < 0 {
		t.Fatal("README has no Configuration section")
	}
	section := s[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	envRe, flagRe := regexp.MustCompile("`(AUDITLOG_[A-Z0-9_]+)`"), regexp.MustCompile("`-([a-z0-9-]+)`")
	table := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.Contains(cells[1], "AUDITLOG_") {
			continue
		}
		envs, flags := envRe.FindAllStringSubmatch(cells[1], -1), flagRe.FindAllStringSubmatch(cells[2], -1)
		if len(envs) != len(flags) {
			t.Errorf("README row %q: %d variables, %d flags", strings.TrimSpace(line), len(envs), len(flags))
			continue
		}
		for i := range envs {
			table[envs[i][1]] = flags[i][1]
		}
	}
	bound := map[string]string{}
	for _, cmd := range []string{"serve", "index"} {
		_, b, _ := parseServerConfig(cmd, []string{"-help"}, func(string) string { return "" }, io.Discard, io.Discard)
		for _, o := range b.options {
			bound[o.env] = o.flag
		}
	}
	for env, flag := range bound {
		if got, ok := table[env]; !ok {
			t.Errorf("%s (-%s) is read by the commands but missing from the README's configuration table", env, flag)
		} else if got != flag {
			t.Errorf("%s: the README says -%s, the commands bind -%s", env, got, flag)
		}
	}
	for env := range table {
		if _, ok := bound[env]; !ok {
			t.Errorf("the README's configuration table lists %s, which neither serve nor index reads", env)
		}
	}
}
