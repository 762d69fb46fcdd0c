package main

import (
	"io"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestExportEmailsGoToTheOutboxWithoutSMTP: on the embedded default with
// no SMTP server, the owner's e-mail of a finished export is written into
// the data directory's outbox as an .eml file that a mail client opens:
// addressed to the owner, with the job's download link.
func TestExportEmailsGoToTheOutboxWithoutSMTP(t *testing.T) {
	dir := t.TempDir()
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir,
		"AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_SEED": "300", "AUDITLOG_EXPORT_POLL": "100ms"})
	base := "http://" + m.Addr()
	tok := token(t, "s3cret", audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana@acme.example",
		Role: audit.RoleAdmin, TenantID: demoTenant})
	job := startJob(t, "POST", base+"/api/audit-logs/exports?async=true", tok)
	waitJob(t, base, tok, job.ID, time.Minute, isDone)
	outbox := filepath.Join(dir, "outbox")
	var files []string
	for deadline := time.Now().Add(30 * time.Second); len(files) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		files, _ = filepath.Glob(filepath.Join(outbox, "*.eml"))
	}
	if len(files) != 1 || !strings.HasSuffix(files[0], "-"+job.ID+".eml") {
		t.Fatalf("outbox %s holds %v, want one .eml for job %s", outbox, files, job.ID)
	}
	st, err := os.Stat(files[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("outbox file: %v %v, want mode 0600", st, err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msg, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatalf("not a mail message: %v", err)
	}
	raw, err := io.ReadAll(msg.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(raw)
	to, err := mail.ParseAddress(msg.Header.Get("To"))
	if err != nil || to.Address != "ana@acme.example" || !strings.Contains(msg.Header.Get("Subject"), "ready") ||
		!strings.Contains(body, base+"/api/audit-logs/exports/"+job.ID+"/file") || !strings.Contains(body, "Open:     "+base+"/settings/audit/?view=exports") {
		t.Fatalf("the e-mail: To %q Subject %q\n%s", msg.Header.Get("To"), msg.Header.Get("Subject"), body)
	}
}
