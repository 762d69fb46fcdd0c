package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupThenRestore (issue 57): the backup and the restore as
// docs/operations.md says, on the embedded store. auditlog backup copies
// the data directory while serve takes events; serve started on the copy
// shows exactly what was there at the backup, its log verifies with the
// pinned key, takes new events, and a verifier that remembers the larger
// log it saw before names the restore a rollback (as the docs tell the
// operator to warn the tenants).
func TestBackupThenRestore(t *testing.T) {
	in := newInsider(t, map[string]string{"AUDITLOG_DATA_DIR": t.TempDir()}, nil)
	in.ingest(70, 30)
	atBackup := in.listed()
	backup := filepath.Join(t.TempDir(), "backup")
	var out strings.Builder
	if code := run([]string{"backup", "--to", backup}, env(in.vars), &out, &out); code != 0 || !strings.Contains(out.String(), "backed up") {
		t.Fatalf("auditlog backup: exit %d\n%s", code, out.String())
	}
	later := in.ingest(71, 10)
	state := t.TempDir()
	if code, out := in.logVerify("--state", state); code != 0 {
		t.Fatalf("log verify before the restore: exit %d\n%s", code, out)
	}

	in.m.Close()
	in.vars["AUDITLOG_DATA_DIR"] = backup
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
