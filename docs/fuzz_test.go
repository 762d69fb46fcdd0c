package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFuzzTargetRunsInCI: each fuzz target of the repository is in
// scripts/fuzz.sh, which make test (and so CI) runs for a bounded time,
// with the package it lives in: a target that only ever runs its seeds
// finds nothing.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	script, err := os.ReadFile("../scripts/fuzz.sh")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	n := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			n++
			if !strings.Contains(string(script), `"`+pkg+" "+m[1]+" ") {
				t.Errorf("%s (%s) is not in scripts/fuzz.sh: add it with what it is compared with", m[1], pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("only %d fuzz targets found: the walk misses the tests", n)
	}
}
