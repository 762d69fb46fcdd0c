package vlog_test

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

func TestCheckpointsRoundTripAndRefuseMalformedText(t *testing.T) {
	cp := vlog.Checkpoint{Origin: vlog.Origin("auditlog.example.com", "7c9e6679-7425-40de-944b-e07fc1f90ae7"), Size: 42, Root: tlog.RecordHash([]byte("x"))}
	text := cp.Text()
	if text != "auditlog.example.com/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7\n42\n"+base64Of(cp.Root)+"\n" {
		t.Fatalf("text %q", text)
	}
	back, err := vlog.ParseCheckpoint(text + "extension line\n")
	if err != nil || back != cp {
		t.Fatalf("parsed %+v %v", back, err)
	}
	for _, bad := range []string{"", "origin\n42\n", "origin\n-1\nAAAA\n", "origin\n042\n" + base64Of(cp.Root) + "\n", "origin\n1\nnot-base64\n", "\n1\n" + base64Of(cp.Root) + "\n"} {
		if _, err := vlog.ParseCheckpoint(bad); audit.ErrorCode(err) != audit.EINVALID {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestLeafDataIsCanonical(t *testing.T) {
	// Keys sorted at every depth, no white space, no HTML escaping,
	// numbers as given.
	e := audit.Event{ID: "evt_audit_1", TenantID: "t", Action: "update", Reason: "a<b & c",
		After: []byte(`{"z": 1.50, "a": {"y": true, "b": [3, 2]}}`)}
	got := string(vlog.LeafData(e))
	for _, want := range []string{`"after":{"a":{"b":[3,2],"y":true},"z":1.50}`, `"reason":"a<b & c"`} {
		if !contains(got, want) {
			t.Fatalf("leaf data %s lacks %s", got, want)
		}
	}
	if vlog.LeafHashV1(e) != tlog.RecordHash([]byte(got)) {
		t.Fatal("the v1 leaf hash is not the RFC 6962 hash of the leaf data")
	}
	// The leaf (v2) is the RFC 6962 hash of the entry: the format, the
	// id, the base64 SHA-256 of the leaf data, a line each.
	d := sha256.Sum256([]byte(got))
	entry := "auditlog-event-v2\nevt_audit_1\n" + base64.StdEncoding.EncodeToString(d[:]) + "\n"
	if vlog.LeafHash(e) != tlog.RecordHash([]byte(entry)) || string(vlog.LeafEntry(e.ID, vlog.EventDigest(&e))) != entry {
		t.Fatal("the leaf hash is not the RFC 6962 hash of the documented entry")
	}
	if hs := vlog.LeafHashes(e); hs[0] != vlog.LeafHash(e) || hs[1] != vlog.LeafHashV1(e) {
		t.Fatal("LeafHashes")
	}
	real := audit.NewID()
	id, digest, err := vlog.ParseLeafEntry(vlog.LeafEntry(real, d))
	if err != nil || id != real || digest != d {
		t.Fatalf("ParseLeafEntry: %q %v", id, err)
	}
	for _, bad := range []string{"", "auditlog-event-v2\nnope\nAAAA\n", entry + "x", strings.Replace(entry, "v2", "v3", 1)} {
		if _, _, err := vlog.ParseLeafEntry([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func base64Of(h tlog.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }
