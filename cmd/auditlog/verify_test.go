package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/periodic"
)

// TestVerifyCommand: `auditlog verify` passes on an intact export
// directory with the public key's PEM, and exits 1 naming the object when
// a byte of a data file is flipped; the same with --deep.
func TestVerifyCommand(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir, keys := t.TempDir(), t.TempDir()
	der, _ := x509.MarshalPKIXPublicKey(pub)
	if err := os.WriteFile(filepath.Join(keys, audit.KeyID(pub)+".pem"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &periodic.Writer{Bucket: periodic.Dir{Root: dir}, Prefix: "exports", Key: priv, TempDir: t.TempDir(), Now: time.Now}
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, WithIDs: true, FirstTenantID: demoTenant, Start: day, End: day.Add(24 * time.Hour)}, 50)
	var prev *audit.Digest
	for i := 0; i < 2; i++ {
		win := periodic.Window{TenantID: demoTenant, Start: day.Add(time.Duration(i) * 12 * time.Hour), End: day.Add(time.Duration(i+1) * 12 * time.Hour)}
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
		d, err := w.Seal(context.Background(), win, []audit.DigestFile{f}, prev)
		if err != nil {
			t.Fatal(err)
		}
		prev = &d
	}
	var out, errb bytes.Buffer
	args := []string{"verify", "--dir", dir, "--tenant", demoTenant, "--keys", keys, "--prefix", "exports"}
	deep := append(slices.Clip(args), "--deep")
	for _, a := range [][]string{args, deep} {
		out.Reset()
		if code := run(a, env(nil), &out, &errb); code != 0 || !strings.Contains(out.String(), "verified 2 digests, 2 files, 50 events") {
			t.Fatalf("intact %v: exit %d\n%s%s", a, code, out.String(), errb.String())
		}
	}
	data := filepath.Join(dir, filepath.FromSlash(audit.DataKey("exports", demoTenant, day, day.Add(12*time.Hour), 0)))
	b, _ := os.ReadFile(data)
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(data, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]string{args, deep} {
		out.Reset()
		if code := run(a, env(nil), &out, &errb); code != 1 || !strings.Contains(out.String(), "ALTERED "+audit.DataKey("exports", demoTenant, day, day.Add(12*time.Hour), 0)) {
			t.Fatalf("altered %v: exit %d\n%s", a, code, out.String())
		}
	}
}
