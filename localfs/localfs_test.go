package localfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/blobtest"
	"github.com/auditlog/auditlog/localfs"
)

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	blobtest.Run(t, localfs.Dir{Root: dir}, false)
	// Nothing was written outside the directory, and no temporary file
	// is left behind.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p)[0] == '.' {
			t.Errorf("left behind: %s", p)
		}
		return err
	})
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "x")); err == nil {
		t.Error("a key escaped the directory")
	}
}
