package docs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// owners says which folders' production code may import a dependency:
// one package per dependency (docs/architecture.md). cmd/auditlog is the
// wiring and mounts the panel on the Gin engine; internal/testkit is what
// only tests import. Test files may use a driver directly to observe a
// service from outside.
var owners = map[string][]string{
	"github.com/segmentio/kafka-go": {"kafka", "internal/testkit/testenv"},
	"github.com/elastic/":           {"elasticsearch"},
	// witnessrun registers logs in the test litewitness's own SQLite
	// database, as witnessctl would (witnessctl cannot be built here).
	"modernc.org/sqlite":                            {"sqlite", "internal/witnessrun"},
	"database/sql":                                  {"sqlite", "internal/witnessrun"},
	"github.com/ncruces/":                           {},
	"github.com/minio/minio-go":                     {"s3"},
	"net/smtp":                                      {"smtp"},
	"github.com/emersion/go-smtp":                   {"internal/testkit/mailtest"},
	"github.com/testcontainers/":                    {"internal/testkit/testenv", "internal/testkit/testenv/containers"},
	"github.com/gin-gonic/gin":                      {"api", "cmd/auditlog"},
	"github.com/auditlog/auditlog/internal/testkit": {"internal/testkit"},
	// The index templates and lifecycle policies are data packages (JSON
	// and a loader, no driver) at the top level, as the design card lays
	// out; the Elasticsearch store alone reads them (and the events
	// mapping's generator, under mappings/, its renderer).
	"github.com/auditlog/auditlog/mappings": {"elasticsearch", "mappings"},
	"github.com/auditlog/auditlog/ilm":      {"elasticsearch"},
}

// transports are what the domain never imports, besides the owned drivers
// above: it is pure (uuid and a JSON decoder are all it uses).
var transports = []string{"github.com/gin-gonic/gin", "github.com/elastic/", "github.com/segmentio/kafka-go", "database/sql",
	"modernc.org/sqlite", "github.com/minio/minio-go", "net/smtp", "net/http", "github.com/prometheus/"}

// libraries are the module's own libraries the domain may use: pure
// code with no dependency on the module (checked), as a third-party
// library would be. internal/jsonenc writes JSON by hand where
// encoding/json takes several passes.
var libraries = []string{"internal/jsonenc"}

// TestOneFolderPerDependency: a driver is imported by the one package that
// owns it, the domain imports no other package of the module and no
// driver (its libraries aside, which import nothing of the module), and
// the test rigs are imported by tests only.
func TestOneFolderPerDependency(t *testing.T) {
	const module = "github.com/auditlog/auditlog/"
	var checked int
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() && path != ".." && fileExists(filepath.Join(path, "go.mod")) {
			// A module of its own (the benchmark's plain copier): not the
			// product, and none of its packages can be imported by it.
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			checked++
			for dep, allowed := range owners {
				if hasPrefix(p, dep) && !slices.ContainsFunc(allowed, func(a string) bool { return dir == a || strings.HasPrefix(dir, a+"/") }) {
					t.Errorf("%s imports %s, which only %v may", path, p, allowed)
				}
			}
			// The domain's sub-packages (audit/blob, audit/cursor, audit/stream, audit/exportjob,
			// audit/history, audit/hold, audit/mask, audit/periodic, audit/restorejob,
			// audit/retention, audit/savedsearch, audit/search, audit/signing, audit/stats, audit/vlog)
			// may import the root and one another (restorejob reads
			// history's states; Go keeps them acyclic) besides the
			// libraries; the root, none of them.
			domainOK := slices.Contains(libraries, strings.TrimPrefix(p, module)) || dir != "audit" && (p == module+"audit" || strings.HasPrefix(p, module+"audit/"))
			if (dir == "audit" || strings.HasPrefix(dir, "audit/")) && (strings.HasPrefix(p, module) && !domainOK ||
				slices.ContainsFunc(transports, func(d string) bool { return hasPrefix(p, d) })) {
				t.Errorf("%s: the domain imports %s", path, p)
			}
			if slices.Contains(libraries, dir) && strings.HasPrefix(p, module) {
				t.Errorf("%s: a library the domain uses imports %s of the module", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 500 {
		t.Fatalf("only %d imports seen: the walk misses the source tree", checked)
	}
}

// hasPrefix matches a whole import path or a path under it.
func hasPrefix(p, dep string) bool {
	if strings.HasSuffix(dep, "/") {
		return strings.HasPrefix(p, dep)
	}
	return p == dep || strings.HasPrefix(p, dep+"/")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
