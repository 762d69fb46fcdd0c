package audit_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

// TestREADMECatalogMatchesCode keeps docs/event.md's event catalog and
// audit.Catalog in step, row for row.
func TestREADMECatalogMatchesCode(t *testing.T) {
	readme, err := os.ReadFile("../docs/event.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Event catalog")
	if !ok {
		t.Fatal("docs/event.md has no Event catalog section")
	}
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| Occurrence") {
			rows = append(rows, strings.TrimSpace(line))
		}
		if strings.HasPrefix(line, "Any of these") {
			break
		}
	}
	var want []string
	for _, c := range audit.Catalog {
		cat := string(c.Category)
		switch {
		case c.BeforeAfter:
			cat += " (before/after)"
		case c.Outcome != "":
			cat += fmt.Sprintf(" (outcome %s)", c.Outcome)
		}
		want = append(want, fmt.Sprintf("| %s | %s | %s | %s |", c.Occurrence, c.Action, c.ResourceType, cat))
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("docs/event.md catalog differs from audit.Catalog\n--- docs/event.md\n%s\n--- code\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

func TestCatalogIsConsistent(t *testing.T) {
	for _, c := range audit.Catalog {
		if !c.Action.Valid() || !audit.ValidToken(c.ResourceType) || !c.Category.Valid() {
			t.Errorf("bad catalog entry %+v", c)
		}
		if got, ok := audit.CategoryOf(c.Action, c.ResourceType); !ok || got != c.Category {
			t.Errorf("CategoryOf(%s, %s) = %s, want %s (two entries disagree)", c.Action, c.ResourceType, got, c.Category)
		}
	}
}
