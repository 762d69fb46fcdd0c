package keyfile_test

import (
	"crypto/ed25519"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/auditlog/auditlog/keyfile"
)

// The key file is written 0600 and never overwritten; two processes that
// start at once agree on one key; a loose mode is reported; errors name
// the file.
func TestLoadOrCreate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sub", "signing-key.pem")
	keys := make([]ed25519.PrivateKey, 8)
	created := make([]bool, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, fresh, _ := ed25519.GenerateKey(nil)
			var err error
			keys[i], created[i], _, err = keyfile.LoadOrCreate(file, fresh)
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	n := 0
	for i := range keys {
		if !keys[i].Equal(keys[0]) {
			t.Fatal("two starters got two keys")
		}
		if created[i] {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d starters say they created the key, want 1", n)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	if _, loose, err := keyfile.Load(file); err != nil || loose {
		t.Fatalf("Load: loose %v, %v", loose, err)
	}
	if err := keyfile.Create(file, keys[0]); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over an existing key: %v, want ErrExist", err)
	}
	os.Chmod(file, 0o644)
	if _, loose, _ := keyfile.Load(file); !loose {
		t.Fatal("a world-readable key is not reported")
	}
	bad := filepath.Join(t.TempDir(), "bad.pem")
	os.WriteFile(bad, []byte("not a key"), 0o600)
	if _, _, err := keyfile.Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a bad file: %v, want an error naming it", err)
	}
}

// What openssl writes is read, and what Create writes openssl reads: the
// file is the standard PKCS #8 form, not one of ours.
func TestOpenSSLReadsAndWritesTheKey(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("openssl is not installed")
		}
		t.Skip("no openssl")
	}
	dir := t.TempDir()
	theirs := filepath.Join(dir, "theirs.pem")
	if out, err := exec.Command(openssl, "genpkey", "-algorithm", "ed25519", "-out", theirs).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	k, _, err := keyfile.Load(theirs)
	if err != nil {
		t.Fatal(err)
	}
	ours := filepath.Join(dir, "ours.pem")
	if err := keyfile.Create(ours, k); err != nil {
		t.Fatal(err)
	}
	a, _ := exec.Command(openssl, "pkey", "-in", theirs, "-pubout").Output()
	b, err := exec.Command(openssl, "pkey", "-in", ours, "-pubout").Output()
	if err != nil || len(a) == 0 || string(a) != string(b) {
		t.Fatalf("openssl reads another public key from our file (%v):\n%s\n%s", err, a, b)
	}
}
