package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFunctionLines is the house rule docs/contributing.md states:
// no function of the production code (test files aside) is longer.
const maxFunctionLines = 80

// TestNoFunctionIsOverTheLimit holds the rule scripts/codefigures
// measures, so that docs/contributing.md's "none over" stays true.
func TestNoFunctionIsOverTheLimit(t *testing.T) {
	fset := token.NewFileSet()
	funcs := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				funcs++
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFunctionLines {
					t.Errorf("%s: %s is %d lines, over %d", path, fd.Name.Name, n, maxFunctionLines)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if funcs < 500 {
		t.Fatalf("only %d functions seen: the walk misses the source tree", funcs)
	}
}
