package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCloseWaitsForEveryConnection: Close returns only once no
// connection to the file is open, even one a reader still holds, so that
// the data directory can be removed after it (database/sql's own Close
// returns at once and closes that connection when it is given back).
func TestCloseWaitsForEveryConnection(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), Config{Path: filepath.Join(dir, "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.r.Query(`SELECT 1`)
	if err != nil {
		t.Fatal(err)
	}
	const held = 300 * time.Millisecond
	go func() {
		time.Sleep(held)
		rows.Close()
	}()
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < held {
		t.Fatalf("Close returned after %s, while a reader held a connection for %s", took, held)
	}
	if n := s.r.Stats().OpenConnections; n != 0 {
		t.Fatalf("%d reader connections open after Close", n)
	}
	// Nothing writes into the directory once Close returned.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the data directory is back after its removal: %v", err)
	}
}
