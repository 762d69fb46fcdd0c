package periodicexport_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/klauspost/compress/gzip"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

const tenant = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

func newKey(t *testing.T) ed25519.PrivateKey {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// chain writes four daily windows (the third gets a late file) to a new
// directory: the first three signed with k1, the fourth with k2 (a key
// rotation). It returns the directory and the public keys.
func chain(t *testing.T) (string, map[string]ed25519.PublicKey) {
	t.Helper()
	dir := t.TempDir()
	return dir, chainIn(t, localfs.Dir{Root: dir})
}

// chainIn writes chain's windows into b and returns the public keys.
func chainIn(t *testing.T, b blob.Store) map[string]ed25519.PublicKey {
	t.Helper()
	k1, k2 := newKey(t), newKey(t)
	w := &periodicexport.Writer{Bucket: b, Prefix: "exports", Key: k1, TempDir: t.TempDir(), Now: time.Now}
	day := time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC)
	g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true, FirstTenantID: tenant, Start: day, End: day.Add(96 * time.Hour)}, 400)
	var events []audit.Event
	for i := 0; i < 400; i++ {
		events = append(events, g.Next())
	}
	in := func(start, end time.Time) periodicexport.Events {
		return func(yield func(*audit.Event) error) error {
			for i := range events {
				if !events[i].Timestamp.Before(start) && events[i].Timestamp.Before(end) {
					if err := yield(&events[i]); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	ctx := context.Background()
	var prev *periodic.Digest
	seal := func(win periodicexport.Window, events periodicexport.Events) {
		f, err := w.WriteFile(ctx, win, events)
		if err != nil {
			t.Fatal(err)
		}
		d, err := w.Seal(ctx, win, []periodic.DigestFile{f}, prev)
		if err != nil {
			t.Fatal(err)
		}
		prev = &d
	}
	for i := 0; i < 4; i++ {
		if i == 3 {
			w.Key = k2
		}
		start := day.Add(time.Duration(i) * 24 * time.Hour)
		seal(periodicexport.Window{TenantID: tenant, Start: start, End: start.Add(24 * time.Hour)}, in(start, start.Add(24*time.Hour)))
		if i == 2 { // a late event of day 3
			seal(periodicexport.Window{TenantID: tenant, Start: start, End: start.Add(24 * time.Hour), Late: 1}, in(start, start.Add(time.Hour)))
		}
	}
	return map[string]ed25519.PublicKey{signing.KeyID(k1.Public().(ed25519.PublicKey)): k1.Public().(ed25519.PublicKey),
		signing.KeyID(k2.Public().(ed25519.PublicKey)): k2.Public().(ed25519.PublicKey)}
}

func verify(t *testing.T, dir string, keys map[string]ed25519.PublicKey) (periodicexport.Report, string) {
	t.Helper()
	return verifyWith(t, dir, keys, periodicexport.Options{})
}

func verifyWith(t *testing.T, dir string, keys map[string]ed25519.PublicKey, opts periodicexport.Options) (periodicexport.Report, string) {
	t.Helper()
	var lines []string
	rep, err := periodicexport.Verify(context.Background(), localfs.Dir{Root: dir}, "exports", tenant, keys, opts, func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	return rep, strings.Join(lines, "\n")
}

func path(dir, key string) string { return filepath.Join(dir, filepath.FromSlash(key)) }

func digestKey(day, late int) string {
	start := time.Date(2026, 11, 18+day, 0, 0, 0, 0, time.UTC)
	return periodic.DigestKey("exports", tenant, start, start.Add(24*time.Hour), late)
}

func dataKey(day, late int) string {
	start := time.Date(2026, 11, 18+day, 0, 0, 0, 0, time.UTC)
	return periodic.DataKey("exports", tenant, start, start.Add(24*time.Hour), late)
}

// TestVerifyAValidChain: four windows, a late file and a key rotation
// verify with the two public keys; every event is counted once per file.
func TestVerifyAValidChain(t *testing.T) {
	dir, keys := chain(t)
	rep, out := verify(t, dir, keys)
	if !rep.OK() || rep.Digests != 5 || rep.Files != 5 || rep.Events < 400 {
		t.Fatalf("%+v\n%s", rep, out)
	}
	if strings.Count(out, "\nok ")+strings.Count(out[:3], "ok ") != 5 || !strings.Contains(out, "all valid") || !strings.Contains(out, "(late file 1)") {
		t.Fatalf("report:\n%s", out)
	}
}

// regzip rewrites the gzip file at p with its content passed through
// edit, compressed at another level (other bytes, unless edit changes
// nothing and the levels agree).
func regzip(t *testing.T, p string, edit func([]byte) []byte) {
	t.Helper()
	f, err := os.Open(p)
	must(t, err)
	zr, err := gzip.NewReader(f)
	must(t, err)
	content, err := io.ReadAll(zr)
	f.Close()
	must(t, err)
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	_, err = zw.Write(edit(content))
	must(t, err)
	must(t, zw.Close())
	must(t, os.WriteFile(p, out.Bytes(), 0o600))
}

// TestVerifyARecompressedCopy: a copy whose data file was recompressed
// (other bytes, the same content) still verifies, by its content hash;
// the same file with one line dropped does not.
func TestVerifyARecompressedCopy(t *testing.T) {
	dir, keys := chain(t)
	before, _ := os.ReadFile(path(dir, dataKey(1, 0)))
	regzip(t, path(dir, dataKey(1, 0)), func(b []byte) []byte { return b })
	if after, _ := os.ReadFile(path(dir, dataKey(1, 0))); bytes.Equal(before, after) {
		t.Fatal("the recompressed file has the same bytes: the test checks nothing")
	}
	if rep, out := verify(t, dir, keys); !rep.OK() {
		t.Fatalf("%+v\n%s", rep, out)
	}
	regzip(t, path(dir, dataKey(1, 0)), func(b []byte) []byte { return b[bytes.IndexByte(b, '\n')+1:] })
	if rep, out := verify(t, dir, keys); rep.OK() || !strings.Contains(out, "ALTERED "+dataKey(1, 0)+" (listed by "+digestKey(1, 0)+"): content sha256") {
		t.Fatalf("%+v\n%s", rep, out)
	}
}

// TestVerifyAVersion1Digest: a digest of format 1 (no stored object's
// hash) is checked by its content, and still catches a flipped byte.
func TestVerifyAVersion1Digest(t *testing.T) {
	dir, k := t.TempDir(), newKey(t)
	w := &periodicexport.Writer{Bucket: localfs.Dir{Root: dir}, Prefix: "exports", Key: k, TempDir: t.TempDir(), Now: time.Now}
	start := time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC)
	win := periodicexport.Window{TenantID: tenant, Start: start, End: start.Add(24 * time.Hour)}
	g := gen.New(gen.Config{Seed: 4, Tenants: 1, WithIDs: true, FirstTenantID: tenant, Start: start, End: win.End}, 50)
	f, err := w.WriteFile(context.Background(), win, func(yield func(*audit.Event) error) error {
		for i := 0; i < 50; i++ {
			e := g.Next()
			if err := yield(&e); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)
	f.ObjectSHA256, f.ObjectSize = "", 0
	d, err := w.Seal(context.Background(), win, []periodic.DigestFile{f}, nil)
	must(t, err)
	d.Version = 1
	d.Sign(k)
	writeJSON(t, path(dir, digestKey(0, 0)), d)
	keys := map[string]ed25519.PublicKey{d.KeyID: k.Public().(ed25519.PublicKey)}
	if rep, out := verify(t, dir, keys); !rep.OK() || rep.Events != 50 {
		t.Fatalf("%+v\n%s", rep, out)
	}
	b, _ := os.ReadFile(path(dir, dataKey(0, 0)))
	b[len(b)/2] ^= 0x01
	must(t, os.WriteFile(path(dir, dataKey(0, 0)), b, 0o600))
	if rep, out := verify(t, dir, keys); rep.OK() || !strings.Contains(out, "ALTERED "+dataKey(0, 0)) {
		t.Fatalf("%+v\n%s", rep, out)
	}
}

// TestVerifyNamesEachTampering: each alteration fails the verification
// and the report names the object it concerns, whether data files are
// checked by their stored object's hash (the default) or decompressed
// (deep).
func TestVerifyNamesEachTampering(t *testing.T) {
	for _, c := range []struct {
		name   string
		tamper func(t *testing.T, dir string, keys map[string]ed25519.PublicKey)
		want   string
	}{
		{"a flipped byte in a data file", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			p := path(dir, dataKey(1, 0))
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x01
			must(t, os.WriteFile(p, b, 0o600))
		}, "ALTERED " + dataKey(1, 0)},
		{"a data file deleted", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			must(t, os.Remove(path(dir, dataKey(2, 1))))
		}, "MISSING " + dataKey(2, 1)},
		{"a digest deleted", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			must(t, os.Remove(path(dir, digestKey(1, 0))))
		}, "MISSING " + digestKey(1, 0)},
		{"a digest re-signed with another key", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			p := path(dir, digestKey(0, 0))
			raw, _ := os.ReadFile(p)
			var d periodic.Digest
			mustJSON(t, raw, &d)
			d.Sign(newKey(t))
			writeJSON(t, p, d)
		}, "UNKNOWN KEY " + digestKey(0, 0)},
		{"two digests swapped", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			a, b := path(dir, digestKey(1, 0)), path(dir, digestKey(2, 0))
			ra, _ := os.ReadFile(a)
			rb, _ := os.ReadFile(b)
			must(t, os.WriteFile(a, rb, 0o600))
			must(t, os.WriteFile(b, ra, 0o600))
		}, "REORDERED " + digestKey(1, 0)},
		{"a count edited in a digest", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			p := path(dir, digestKey(3, 0))
			raw, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, []byte(strings.Replace(string(raw), `"count": `, `"count": 1`, 1)), 0o600))
		}, "BAD SIGNATURE " + digestKey(3, 0)},
		{"a file nobody vouches for", func(t *testing.T, dir string, _ map[string]ed25519.PublicKey) {
			b, _ := os.ReadFile(path(dir, dataKey(0, 0)))
			must(t, os.WriteFile(path(dir, dataKey(0, 2)), b, 0o600))
		}, "UNLISTED " + dataKey(0, 2)},
		{"the rotated key missing", func(_ *testing.T, _ string, keys map[string]ed25519.PublicKey) {
			for id := range keys {
				delete(keys, id) // one of the two; the other still verifies its digests
				break
			}
		}, "UNKNOWN KEY"},
	} {
		for _, opts := range []periodicexport.Options{{}, {Deep: true}} {
			t.Run(fmt.Sprintf("%s, deep %v", c.name, opts.Deep), func(t *testing.T) {
				dir, keys := chain(t)
				c.tamper(t, dir, keys)
				rep, out := verifyWith(t, dir, keys, opts)
				if rep.OK() || !strings.Contains(out, c.want) {
					t.Fatalf("%+v, want a report naming %q:\n%s", rep, c.want, out)
				}
			})
		}
	}
}
