package atomicfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/atomicfile"
)

type failing struct{ after int }

func (f *failing) Read(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("the source broke")
	}
	n := min(len(p), f.after)
	for i := range p[:n] {
		p[i] = 'x'
	}
	f.after -= n
	return n, nil
}

// TestWriteIsWholeOrNothing: a write lands under its name with its bytes;
// a source that fails half way leaves neither the name nor a temporary
// file behind.
func TestWriteIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b.txt")
	if n, err := atomicfile.Write(p, strings.NewReader("hello"), 5); err != nil || n != 5 {
		t.Fatal(n, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Fatalf("%q", b)
	}
	q := filepath.Join(dir, "a", "c.txt")
	if _, err := atomicfile.Write(q, io.MultiReader(strings.NewReader("x"), &failing{after: 10}), -1); err == nil {
		t.Fatal("a broken source wrote a file")
	}
	if _, err := atomicfile.Write(filepath.Join(dir, "a", "d.txt"), strings.NewReader("short"), 9); err == nil {
		t.Fatal("a short source wrote a file")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "a"))
	if len(entries) != 1 || entries[0].Name() != "b.txt" {
		t.Fatalf("left behind: %v", entries)
	}
}

// TestBelowKeepsKeysInTheirDirectory: clean relative keys map below the
// root; anything that could leave it, or is not clean, is refused.
func TestBelowKeepsKeysInTheirDirectory(t *testing.T) {
	if p, err := atomicfile.Below("/data", "a/b/c.json"); err != nil || p != filepath.Join("/data", "a", "b", "c.json") {
		t.Fatalf("%q %v", p, err)
	}
	for _, k := range []string{"", "../x", "a/../../x", "/etc/passwd", "a//b", "a/./b", "a/", "a/..b"} {
		if _, err := atomicfile.Below("/data", k); !errors.Is(err, atomicfile.ErrBadKey) {
			t.Errorf("%q: %v, want ErrBadKey", k, err)
		}
	}
}
