package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestAlertRulesAreWellFormedAndNameRealMetrics: docs/alerts.yml is a
// Prometheus rule file (groups of rules, each with an alert name, an
// expression, a severity and a summary), and every auditlog metric an
// expression reads is one the code registers, so that a renamed metric
// does not leave an alert that never fires.
func TestAlertRulesAreWellFormedAndNameRealMetrics(t *testing.T) {
	b, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		t.Fatal(err)
	}
	registered := registeredMetrics(t)
	metric := regexp.MustCompile(`\bauditlog_[a-z_]+`)
	rules := 0
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			rules++
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" {
				t.Errorf("group %s: a rule lacks its alert, expr or summary: %+v", g.Name, r)
			}
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("%s: severity %q, want critical or warning", r.Alert, s)
			}
			names := metric.FindAllString(r.Expr, -1)
			if len(names) == 0 {
				t.Errorf("%s reads no auditlog metric: %s", r.Alert, r.Expr)
			}
			for _, n := range names {
				if !registered[n] {
					t.Errorf("%s reads %s, which no code registers", r.Alert, n)
				}
			}
		}
	}
	if rules < 5 {
		t.Fatalf("%d rules in alerts.yml", rules)
	}
	if !strings.Contains(string(mustRead(t, "operations.md")), "(alerts.yml)") {
		t.Error("docs/operations.md does not link alerts.yml")
	}
}

// registeredMetrics is every metric name the Go code passes to
// Prometheus whole (Name: "auditlog_…" of its options; the indexer's
// counters, made as "auditlog_indexer_" + name, are not among them).
func registeredMetrics(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	full := regexp.MustCompile(`Name:\s*"(auditlog_[a-z_]+)"`)
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src := string(mustRead(t, path))
		for _, m := range full.FindAllStringSubmatch(src, -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
