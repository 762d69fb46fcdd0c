package main

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestBackupThenRestore (issue 57): the backup and the restore as
// docs/operations.md says, on the embedded store. auditlog backup copies
// the data directory while serve takes events; serve started on the copy
// shows exactly what was there at the backup (rehearseRestore).
func TestBackupThenRestore(t *testing.T) {
	in := newInsider(t, map[string]string{"AUDITLOG_DATA_DIR": t.TempDir()}, nil)
	backup := filepath.Join(t.TempDir(), "backup")
	rehearseRestore(t, in, func() {
		var out strings.Builder
		if code := run([]string{"backup", "--to", backup}, env(in.vars), &out, &out); code != 0 || !strings.Contains(out.String(), "backed up") {
			t.Fatalf("auditlog backup: exit %d\n%s", code, out.String())
		}
	}, func() { in.vars["AUDITLOG_DATA_DIR"] = backup })
}

// TestElasticsearchSnapshotThenRestore (issue 57): the same on
// Elasticsearch, as docs/operations.md says: a snapshot of the
// <prefix>-* data streams and indices, without the cluster's global
// state, while serve takes events; then the snapshot restored where none
// of its names exist (as on a new cluster: no stream, index, template or
// policy of the prefix) and serve started on it, which puts its templates
// and policies back. The test cluster has no API to delete a data stream,
// so the restore renames the prefix (rename_pattern), which renames the
// streams' backing indices too, and serve starts on the new prefix.
func TestElasticsearchSnapshotThenRestore(t *testing.T) {
	es := testenv.ElasticsearchURL(t)
	prefix, restored := testenv.Name("auditlog-snap"), testenv.Name("auditlog-restored")
	in := newInsider(t, map[string]string{"AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_STORE": "elasticsearch",
		"AUDITLOG_ES_URL": es, "AUDITLOG_ES_INDEX_PREFIX": prefix,
		"AUDITLOG_PERIODIC_SIGNING_KEY": testKeyFile(t), "AUDITLOG_ACCEPT_KEY": testAcceptKey(t)}, nil)
	repo := es + "/_snapshot/" + prefix
	// A shared-filesystem repository, relative to the node's path.repo
	// (scripts/services.sh sets it).
	esDo(t, http.MethodPut, repo, `{"type":"fs","settings":{"location":"`+prefix+`"}}`, nil)
	t.Cleanup(func() { esTry(http.MethodDelete, repo+"/snap"); esTry(http.MethodDelete, repo) })
	rehearseRestore(t, in, func() {
		var out struct {
			Snapshot struct {
				State   string
				Indices []string
				Shards  struct{ Failed int }
			}
		}
		esDo(t, http.MethodPut, repo+"/snap?wait_for_completion=true", `{"indices":"`+prefix+`-*","include_global_state":false}`, &out)
		if out.Snapshot.State != "SUCCESS" || out.Snapshot.Shards.Failed != 0 || !slices.ContainsFunc(out.Snapshot.Indices, func(i string) bool { return strings.HasPrefix(i, ".ds-"+prefix+"-events-") }) {
			t.Fatalf("the snapshot holds no event stream, or failed: %+v", out.Snapshot)
		}
	}, func() {
		for _, kind := range []string{"_index_template", "_component_template"} {
			res, err := http.Get(es + "/" + kind + "/" + restored + "*")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("GET %s of the new prefix before the restore: %d, want 404", kind, res.StatusCode)
			}
		}
		var out struct {
			Snapshot struct {
				Indices []string
				Shards  struct{ Total, Failed int }
			}
		}
		esDo(t, http.MethodPost, repo+"/snap/_restore?wait_for_completion=true", `{"indices":"`+prefix+`-*","include_global_state":false,
			"rename_pattern":"`+prefix+`-(.+)","rename_replacement":"`+restored+`-$1"}`, &out)
		if out.Snapshot.Shards.Failed != 0 || !slices.ContainsFunc(out.Snapshot.Indices, func(i string) bool { return strings.HasPrefix(i, ".ds-"+restored+"-events-") }) {
			t.Fatalf("restore: %+v", out.Snapshot)
		}
		in.vars["AUDITLOG_ES_INDEX_PREFIX"] = restored
	})
}

// rehearseRestore takes a backup while serve runs (backup), ingests more,
// stops serve, restores (restore) and starts serve on what was restored:
// it shows exactly what was there at the backup, its log verifies with
// the pinned key, takes new events, and a verifier that remembers the
// larger log it saw before names the restore a rollback (as the docs tell
// the operator to warn the tenants).
func rehearseRestore(t *testing.T, in *insider, backup, restore func()) {
	t.Helper()
	in.ingest(70, 30)
	atBackup := in.listed()
	backup()
	later := in.ingest(71, 10)
	state := t.TempDir()
	if code, out := in.logVerify("--state", state); code != 0 {
		t.Fatalf("log verify before the restore: exit %d\n%s", code, out)
	}

	in.m.Close()
	restore()
	in.start()
	if got := in.listed(); got != atBackup {
		t.Fatalf("the restored store lists %d events, want the %d of the backup", got, atBackup)
	}
	if code, _ := in.c.do("GET", "/api/audit-logs/"+later[0].ID, in.tok, nil); code != 404 {
		t.Fatalf("an event ingested after the backup: %d, want 404", code)
	}
	if code, out := in.logVerify("--state", "none"); code != 0 {
		t.Fatalf("log verify of the restored store: exit %d\n%s", code, out)
	}
	if code, out := in.logVerify("--state", state); code != 1 || !strings.Contains(out, "rollback") {
		t.Fatalf("a verifier that saw the larger log: exit %d, want 1 naming a rollback\n%s", code, out)
	}
	in.ingest(72, 5) // the restored service takes and seals events
	if code, out := in.logVerify("--state", "none"); code != 0 {
		t.Fatalf("log verify after new events: exit %d\n%s", code, out)
	}
}

// esTry sends a request whose outcome does not matter (clean-up).
func esTry(method, url string) {
	req, _ := http.NewRequest(method, url, nil)
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
	}
}
