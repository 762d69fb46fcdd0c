// Package accepttest gives tests the acceptance key (vlog.Acceptor) of
// the stores and sealers they build: one fixed key, so that a store a
// test writes and a sealer or a serve it starts on that store agree,
// and a file of it for a data directory or AUDITLOG_ACCEPT_KEY.
package accepttest

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"
)

// Key is the tests' acceptance key.
var Key = bytes.Repeat([]byte("accepted-by-the-test-service-key"), 1)

// MaskKey is the tests' masking key (streaming.Streamer's MaskKey, from
// which each stream's hash key is derived).
var MaskKey = []byte("the-test-deployment-masking-key!")

// Acceptor tags and checks with Key.
var Acceptor = func() *vlog.Acceptor {
	a, err := vlog.NewAcceptor(Key)
	if err != nil {
		panic(err)
	}
	return a
}()

// File writes Key, as AUDITLOG_ACCEPT_KEY reads it (0600), into dir
// under name ("accept-key" in a data directory makes it the embedded
// store's key) and returns the file.
func File(t testing.TB, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(base64.StdEncoding.EncodeToString(Key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// Other is an acceptor of another key: what an insider without the key
// file could at best make.
func Other() *vlog.Acceptor {
	a, err := vlog.NewAcceptor(bytes.Repeat([]byte{7}, vlog.AcceptKeySize))
	if err != nil {
		panic(err)
	}
	return a
}
