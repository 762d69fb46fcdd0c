package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestComposeFile checks docker-compose.yml where no compose plugin can:
// the services exist, Elasticsearch is 8.19, and every AUDITLOG_* variable
// it sets is one the commands read.
func TestComposeFile(t *testing.T) {
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services map[string]struct {
			Image       string         `yaml:"image"`
			Command     []string       `yaml:"command"`
			Environment map[string]any `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"elasticsearch", "kafka", "serve", "index", "mailpit"} {
		if _, ok := doc.Services[s]; !ok {
			t.Errorf("service %s missing", s)
		}
	}
	if img := doc.Services["elasticsearch"].Image; !strings.Contains(img, ":8.19.") {
		t.Errorf("elasticsearch image %q, want 8.19.x", img)
	}
	for _, name := range []string{"serve", "index"} {
		svc := doc.Services[name]
		if len(svc.Command) != 1 || svc.Command[0] != name {
			t.Errorf("%s runs %v", name, svc.Command)
		}
		_, b, err := parseServerConfig(name, []string{"-help"}, func(string) string { return "" }, io.Discard, io.Discard)
		_ = err // -help stops parsing; the binder knows every variable by then
		known := map[string]bool{}
		for _, o := range b.options {
			known[o.env] = true
		}
		for k := range svc.Environment {
			if strings.HasPrefix(k, "AUDITLOG_") && !known[k] {
				t.Errorf("%s sets %s, which `auditlog %s` does not read", name, k, name)
			}
		}
	}
}
