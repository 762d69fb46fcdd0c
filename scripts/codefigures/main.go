// Command codefigures prints the figures of docs/contributing.md for the non-test, non-generated Go files tracked by git: how
// many, their median length, the longest functions, and the share of
// comment lines among non-blank lines. Run it from the repository root:
//
//	go run ./scripts/codefigures
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"sort"
	"strings"
)

func main() {
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "git ls-files:", err)
		os.Exit(1)
	}
	var lengths []int
	var funcs []fn
	comment, nonBlank := 0, 0
	fset := token.NewFileSet()
	for _, path := range strings.Fields(string(out)) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		lengths = append(lengths, strings.Count(string(src), "\n"))
		for _, line := range strings.Split(string(src), "\n") {
			if t := strings.TrimSpace(line); t != "" {
				nonBlank++
				if strings.HasPrefix(t, "//") {
					comment++
				}
			}
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
				funcs = append(funcs, fn{path + ": " + fd.Name.Name, n})
			}
		}
	}
	sort.Ints(lengths)
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].lines > funcs[j].lines })
	fmt.Printf("files %d, median %d lines, comment lines %.1f%% of non-blank lines\n", len(lengths), median(lengths), 100*float64(comment)/float64(nonBlank))
	fmt.Println("longest functions:")
	for _, f := range funcs[:min(5, len(funcs))] {
		fmt.Printf("  %3d %s\n", f.lines, f.name)
	}
}

type fn struct {
	name  string
	lines int
}

func median(s []int) int {
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
