package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// rootNamesLimit is how many exported top-level names (types, functions,
// variables, constants; methods not counted) the domain root may have.
// A ratchet (issue 54): it only goes down, as sub-domains move out
// (audit/blob, audit/cursor, audit/exportjob, audit/history, audit/mask, audit/periodic, audit/signing,
// audit/restorejob, audit/retention, audit/savedsearch, audit/search,
// audit/stats, audit/stream, audit/vlog so far). What stays is the
// vocabulary every package shares (docs/architecture.md).
const rootNamesLimit = 200

// TestDomainRootStaysSmall holds the domain root to rootNamesLimit names,
// so that a new rule lands in its sub-domain rather than the root.
func TestDomainRootStaysSmall(t *testing.T) {
	files, err := filepath.Glob("../audit/*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	fs := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fs, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		n += exportedTopLevel(af)
	}
	if n > rootNamesLimit {
		t.Errorf("the domain root exports %d names, more than %d: put the new ones in the sub-domain they belong to (docs/architecture.md)", n, rootNamesLimit)
	}
	t.Logf("the domain root exports %d names (limit %d)", n, rootNamesLimit)
}

// exportedTopLevel counts f's exported types, functions, variables and
// constants.
func exportedTopLevel(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if name.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}
