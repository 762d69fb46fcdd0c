package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// notFieldLists are files that name the event's multi-word fields but do
// not list the event's fields one by one, each with the reason: a change
// of the event's fields does not touch them.
var notFieldLists = map[string]string{
	"api/restore_handlers.go": "a restore request's own fields (its requestId, the actor who asked), not the event's",
}

// TestTheFieldGuideIsComplete walks the list of changing.md's "Add a
// field to the audit event", as the layering test walks the imports:
// every path it names exists, and every file of the code that spells out
// the event's fields one by one (it names each multi-word field of
// audit.Event, found by reflection: tenantId, userAgent, crossTenant,
// requestId, restoredFrom, in either Go's or JSON's spelling) is on the
// list, so a contributor following the guide alone misses no encoder.
func TestTheFieldGuideIsComplete(t *testing.T) {
	raw, err := os.ReadFile("changing.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "## Add a field to the audit event")
	if start < 0 {
		t.Fatal("changing.md has no section \"Add a field to the audit event\"")
	}
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^` ]+)`").FindAllStringSubmatch(section, -1) {
		p := strings.TrimSuffix(m[1], "/")
		if !strings.Contains(p, "/") || strings.HasPrefix(p, "./") {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join("..", p))
		if len(matches) == 0 {
			t.Errorf("changing.md names %s, which does not exist", m[1])
		}
		for _, f := range matches {
			listed[filepath.ToSlash(strings.TrimPrefix(f, "../"))] = true
		}
	}
	if len(listed) < 15 {
		t.Fatalf("only %d paths read from the section: the walk misses its list", len(listed))
	}
	found := fieldLists(t)
	if len(found) < 8 {
		t.Fatalf("only %v found: the walk misses the encoders", found)
	}
	for _, f := range found {
		if _, ok := notFieldLists[f]; !ok && !listed[f] {
			t.Errorf("%s spells out the event's fields one by one, but changing.md's \"Add a field to the audit event\" does not name it", f)
		}
	}
}

// fieldLists finds the files (Go outside tests, JSON, the panel's
// TypeScript) that name every multi-word field of audit.Event.
func fieldLists(t *testing.T) []string {
	var words []string
	for _, l := range schematest.Leaves(schematest.Full(t)) {
		name := l.Path[strings.LastIndex(l.Path, ".")+1:]
		if strings.ToLower(name) != name {
			words = append(words, strings.ToLower(name))
		}
	}
	if len(words) < 4 {
		t.Fatalf("only %v: the event's multi-word fields are not found", words)
	}
	var out []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "node_modules" || n == "dist" || n == "testdata" || strings.HasPrefix(n, ".") && path != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".json" && ext != ".ts" && ext != ".tsx" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		low := strings.ToLower(string(b))
		for _, w := range words {
			if !strings.Contains(low, w) {
				return nil
			}
		}
		out = append(out, filepath.ToSlash(strings.TrimPrefix(path, "../")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
