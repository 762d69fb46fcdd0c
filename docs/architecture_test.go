package docs

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureMapNamesEveryPackage (issue 54): architecture.md's
// package table names every package of the module (go list), each as
// `path/` in its first column, and names no directory that holds none.
func TestArchitectureMapNamesEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "github.com/auditlog/auditlog/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	cell := regexp.MustCompile("`([a-z0-9_/]+/)`")
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line[1:], "|", 2)[0]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			named[m[1]] = true
		}
	}
	var missing []string
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "/node_modules/") {
			continue // the panel's npm packages (one ships Go code): not the module's own
		}
		dir := strings.TrimPrefix(p, "github.com/auditlog/auditlog/") + "/"
		if !named[dir] {
			missing = append(missing, dir)
		}
		delete(named, dir)
	}
	if len(missing) > 0 {
		t.Errorf("architecture.md's package table does not name %v", missing)
	}
	for dir := range named {
		if st, err := os.Stat("../" + dir); err != nil || !st.IsDir() {
			t.Errorf("architecture.md names %s, which is no directory of the module", dir)
		}
	}
}
