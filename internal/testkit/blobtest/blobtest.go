// Package blobtest is the conformance suite of blob.Store, run against
// each implementation (localfs and s3) as storetest is against each store.
package blobtest

import (
	"bytes"
	"context"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Run checks b: objects read back byte for byte, a replaced object, a
// short or long source storing nothing, ENOTFOUND, Delete twice, List by
// prefix in order, keys that would leave the store refused, and whether
// DownloadURL is a URL or ENOTSUPPORTED as urls says.
func Run(t *testing.T, b blob.Store, urls bool) {
	ctx := context.Background()
	put := func(key, body string) {
		t.Helper()
		if err := b.Put(ctx, key, strings.NewReader(body), int64(len(body))); err != nil {
			t.Fatalf("Put %s: %v", key, err)
		}
	}
	read := func(key string) (string, error) {
		t.Helper()
		r, err := b.Open(ctx, key)
		if err != nil {
			return "", err
		}
		defer r.Close()
		got, err := io.ReadAll(r)
		return string(got), err
	}
	gz := string([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	put("t1/a/2026-11-20.ndjson.gz", gz)
	put("t1/a/2026-11-20.json", `{"n":1}`)
	put("t1/b.pem", "pem")
	put("t2/x.csv.gz", gz)
	for key, want := range map[string]string{"t1/a/2026-11-20.ndjson.gz": gz, "t2/x.csv.gz": gz, "t1/b.pem": "pem"} {
		if got, err := read(key); err != nil || got != want {
			t.Errorf("%s reads back %q, %v; want the %d bytes stored", key, got, err, len(want))
		}
	}
	put("t1/b.pem", "replaced")
	if got, _ := read("t1/b.pem"); got != "replaced" {
		t.Errorf("a replaced object reads %q", got)
	}
	for _, size := range []int64{3, 30} {
		if err := b.Put(ctx, "t1/short", bytes.NewReader(make([]byte, 10)), size); err == nil {
			t.Errorf("10 bytes stored as %d", size)
		}
		if _, err := read("t1/short"); audit.ErrorCode(err) != audit.ENOTFOUND {
			t.Errorf("a refused Put left an object (%v)", err)
		}
	}
	if _, err := read("t1/none"); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Errorf("a missing object: %v, want ENOTFOUND", err)
	}
	keys, err := b.List(ctx, "t1/")
	if want := []string{"t1/a/2026-11-20.json", "t1/a/2026-11-20.ndjson.gz", "t1/b.pem"}; err != nil || !slices.Equal(keys, want) {
		t.Errorf("List t1/ = %q, %v; want %q", keys, err, want)
	}
	for range 2 {
		if err := b.Delete(ctx, "t1/b.pem"); err != nil {
			t.Errorf("Delete: %v", err)
		}
	}
	if _, err := read("t1/b.pem"); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Errorf("a deleted object: %v", err)
	}
	for _, key := range []string{"../x", "t1/../../x", "/etc/passwd", "", "t1//x", `t1\..\x`} {
		if err := b.Put(ctx, key, strings.NewReader("x"), 1); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("Put %q: %v, want EINVALID", key, err)
		}
		if _, err := b.Open(ctx, key); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("Open %q: %v, want EINVALID", key, err)
		}
	}
	u, err := b.DownloadURL(ctx, "t2/x.csv.gz", "x.csv", time.Minute)
	switch {
	case urls && (err != nil || !strings.HasPrefix(u, "http")):
		t.Errorf("DownloadURL = %q, %v", u, err)
	case !urls && audit.ErrorCode(err) != audit.ENOTSUPPORTED:
		t.Errorf("DownloadURL: %v, want ENOTSUPPORTED", err)
	}
}
