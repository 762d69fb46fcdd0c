package client_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEExample: docs/ingest.md's client example is Example's body, which
// the compiler checks.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile("../docs/ingest.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "func Example() {\n")
	body, _, _ = strings.Cut(body, "\n}\n")
	var want []string
	for _, l := range strings.Split(body, "\n") {
		want = append(want, strings.TrimPrefix(l, "\t"))
	}
	_, block, ok := strings.Cut(string(readme), "```go\nctx := context.Background()\n")
	if !ok {
		t.Fatal("docs/ingest.md has no client example (a go block starting with ctx := context.Background())")
	}
	block, _, _ = strings.Cut("ctx := context.Background()\n"+block, "```")
	if got := strings.TrimSpace(block); got != strings.TrimSpace(strings.Join(want, "\n")) {
		t.Fatalf("docs/ingest.md example differs from Example:\n--- docs/ingest.md\n%s\n--- example_test.go\n%s", got, strings.Join(want, "\n"))
	}
	if n := len(want); n > 22 {
		t.Fatalf("the example is %d lines; keep it about 20", n)
	}
}
