package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

// TestVerifyCommand: `auditlog verify` passes on an intact export
// directory with the public key's PEM, and exits 1 naming the object when
// a byte of a data file is flipped; the same with --deep.
func TestVerifyCommand(t *testing.T) {
	dir, keys, day := writeChain(t, 2)
	var out, errb bytes.Buffer
	args := []string{"verify", "--dir", dir, "--tenant", demoTenant, "--keys", keys, "--prefix", "exports"}
	deep := append(slices.Clip(args), "--deep")
	for _, a := range [][]string{args, deep} {
		out.Reset()
		if code := run(a, env(nil), &out, &errb); code != 0 || !strings.Contains(out.String(), "verified 2 digests, 2 files, 50 events") {
			t.Fatalf("intact %v: exit %d\n%s%s", a, code, out.String(), errb.String())
		}
	}
	data := filepath.Join(dir, filepath.FromSlash(periodic.DataKey("exports", demoTenant, day, day.Add(12*time.Hour), 0)))
	b, _ := os.ReadFile(data)
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(data, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]string{args, deep} {
		out.Reset()
		if code := run(a, env(nil), &out, &errb); code != 1 || !strings.Contains(out.String(), "ALTERED "+periodic.DataKey("exports", demoTenant, day, day.Add(12*time.Hour), 0)) ||
			!strings.Contains(out.String(), "verified 1 digests, 1 files, 25 events") || !strings.Contains(out.String(), ": 1 problem\n") {
			t.Fatalf("altered %v: exit %d\n%s", a, code, out.String())
		}
	}
}

// writeChain writes a chain of n 12-hour windows of 25 events each under
// prefix "exports" of a fresh directory, signed with a fresh key whose
// PEM is in another directory; it returns both and the first day.
func writeChain(t *testing.T, n int) (dir, keys string, day time.Time) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir, keys = t.TempDir(), t.TempDir()
	der, _ := x509.MarshalPKIXPublicKey(pub)
	if err := os.WriteFile(filepath.Join(keys, signing.KeyID(pub)+".pem"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &periodicexport.Writer{Bucket: localfs.Dir{Root: dir}, Prefix: "exports", Key: priv, TempDir: t.TempDir(), Now: time.Now}
	day = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, WithIDs: true, FirstTenantID: demoTenant, Start: day, End: day.Add(time.Duration(n) * 12 * time.Hour)}, 25*n)
	var prev *periodic.Digest
	for i := 0; i < n; i++ {
		win := periodicexport.Window{TenantID: demoTenant, Start: day.Add(time.Duration(i) * 12 * time.Hour), End: day.Add(time.Duration(i+1) * 12 * time.Hour)}
		f, err := w.WriteFile(context.Background(), win, func(yield func(*audit.Event) error) error {
			for j := 0; j < 25; j++ {
				e := g.Next()
				if err := yield(&e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		d, err := w.Seal(context.Background(), win, []periodic.DigestFile{f}, prev)
		if err != nil {
			t.Fatal(err)
		}
		prev = &d
	}
	return dir, keys, day
}

// TestVerifyProvesTheEndOnlyAgainstACheckpoint: a copy whose newest
// window was deleted verifies against itself (and says its end is not
// proven), and fails as TRUNCATED against the checkpoint an earlier
// verification printed; a window deleted from the middle is a GAP.
func TestVerifyProvesTheEndOnlyAgainstACheckpoint(t *testing.T) {
	dir, keys, day := writeChain(t, 4)
	args := []string{"verify", "--dir", dir, "--tenant", demoTenant, "--keys", keys, "--prefix", "exports"}
	var out bytes.Buffer
	if code := run(args, env(nil), &out, io.Discard); code != 0 || !strings.Contains(out.String(), "not proven") {
		t.Fatalf("intact, no checkpoint: exit %d\n%s", code, out.String())
	}
	cp := out.String()[strings.LastIndex(out.String(), "checkpoint: "):]
	cpFile := filepath.Join(t.TempDir(), "checkpoint")
	if err := os.WriteFile(cpFile, []byte(cp), 0o600); err != nil {
		t.Fatal(err)
	}
	window := func(i int) (string, string) {
		s, e := day.Add(time.Duration(i)*12*time.Hour), day.Add(time.Duration(i+1)*12*time.Hour)
		return filepath.Join(dir, filepath.FromSlash(periodic.DigestKey("exports", demoTenant, s, e, 0))), filepath.Join(dir, filepath.FromSlash(periodic.DataKey("exports", demoTenant, s, e, 0)))
	}
	for _, f := range []string{func() string { d, _ := window(3); return d }(), func() string { _, f := window(3); return f }()} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if code := run(args, env(nil), &out, io.Discard); code != 0 || !strings.Contains(out.String(), "verified 3 digests") || !strings.Contains(out.String(), "not proven") {
		t.Fatalf("cut off, no checkpoint: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run(append(slices.Clip(args), "--checkpoint", cpFile), env(nil), &out, io.Discard); code != 1 || !strings.Contains(out.String(), "TRUNCATED exports/"+demoTenant+"/digest/") {
		t.Fatalf("cut off, with the checkpoint: exit %d\n%s", code, out.String())
	}
	d, f := window(1)
	_ = os.Remove(d)
	_ = os.Remove(f)
	out.Reset()
	if code := run(args, env(nil), &out, io.Discard); code != 1 || !strings.Contains(out.String(), "GAP between 2026-11-20T12:00:00.000Z and 2026-11-21T00:00:00.000Z") {
		t.Fatalf("a middle window deleted: exit %d\n%s", code, out.String())
	}
}

// TestVerifyTrustsNoKeyFromTheCopy: a key inside the directory under test
// is refused (whoever altered the files could have replaced it), and the
// keys trusted are named with their source; usage errors exit 2.
func TestVerifyTrustsNoKeyFromTheCopy(t *testing.T) {
	dir, keys, _ := writeChain(t, 1)
	inCopy := filepath.Join(dir, "exports", demoTenant, "keys")
	if err := os.MkdirAll(inCopy, 0o755); err != nil {
		t.Fatal(err)
	}
	pems, _ := filepath.Glob(filepath.Join(keys, "*.pem"))
	raw, _ := os.ReadFile(pems[0])
	_ = os.WriteFile(filepath.Join(inCopy, "k.pem"), raw, 0o600)
	var out, errb bytes.Buffer
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dir", dir, "--keys", inCopy}, "lies inside the copy under test"},
		{[]string{"--dir", dir + "-typo", "--keys", keys}, "no such directory"},
		{[]string{"--dir", dir}, "no public key to trust"},
		{[]string{"--dir", dir, "--keys", keys, "--checkpoint", "nonsense"}, "is not a checkpoint"},
		{[]string{"--dir", dir, "--keys", keys, "--bogus"}, "bogus"},
	} {
		errb.Reset()
		if code := run(append([]string{"verify", "--tenant", demoTenant, "--prefix", "exports"}, c.args...), env(nil), &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d %q, want 2 saying %q", c.args, code, errb.String(), c.want)
		}
	}
	out.Reset()
	if code := run([]string{"verify", "--tenant", demoTenant, "--prefix", "exports", "--dir", dir, "--key", pems[0]}, env(nil), &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "trusting key ") || !strings.Contains(out.String(), "from "+pems[0]) {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
}
