package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEExplainsEveryVerifyLabel: each label `auditlog verify` prints
// before an object key (periodicexport/verify.go) has a row in
// docs/periodic-export.md's table of problems, so an auditor can look up every line it reads.
func TestREADMEExplainsEveryVerifyLabel(t *testing.T) {
	src, err := os.ReadFile("../periodicexport/verify.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("periodic-export.md")
	if err != nil {
		t.Fatal(err)
	}
	labels := regexp.MustCompile(`problem\("([A-Z][A-Z ]*[A-Z]) `).FindAllStringSubmatch(string(src), -1)
	if len(labels) < 10 {
		t.Fatalf("found %d labels in periodicexport/verify.go: the pattern no longer matches how it prints them", len(labels))
	}
	for _, l := range labels {
		if !strings.Contains(string(readme), "| `"+l[1]+"` |") {
			t.Errorf("docs/periodic-export.md's table of verify problems has no row for %s", l[1])
		}
	}
}
