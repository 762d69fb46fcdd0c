// Package docs_test proves the documentation: the shell blocks of the
// README and of every page of docs/ are run, as a new user pastes them,
// against a real `make demo`, and every relative link resolves.
package docs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// pages are the documentation's pages whose shell blocks run, in this
// order (the order a newcomer follows: the README, then the pages whose
// examples build on its demo), then every other page of docs/: each
// block runs unless the line before it is a skip marker that says why.
var pages = []string{"../README.md", "periodic-export.md", "verifiable-log.md", "api.md", "ingest.md"}

const skipMarker = "<!-- readme-test: skip"

// block is one fenced shell block of a page.
type block struct {
	page string
	line int
	text string
}

// allPages is pages followed by the rest of docs/*.md.
func allPages(t *testing.T) []string {
	t.Helper()
	rest, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(pages)
	for _, p := range rest {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// shellBlocks returns the ```sh blocks of a page, in order, and how many
// were skipped by a marker; a skip marker must say why.
func shellBlocks(t *testing.T, page, text string) (run []block, skipped int) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(text))
	prev := ""
	var cur *block
	skip := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			if skip {
				skipped++
			} else {
				run = append(run, *cur)
			}
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(line, "  ") + "\n"
		case trimmed == "```sh" || trimmed == "```bash" || trimmed == "```shell":
			cur = &block{page: page, line: n}
			p := strings.TrimSpace(prev)
			skip = strings.HasPrefix(p, skipMarker)
			if skip && !strings.HasPrefix(p, skipMarker+" (") {
				t.Errorf("%s:%d: a skip marker must say why: %s (reason) -->", page, n, skipMarker)
			}
		}
		if trimmed != "" {
			prev = line
		}
	}
	return run, skipped
}

// TestREADME starts `make demo` in a copy of the repository, as the README
// says, and pastes every shell block of the README and of every page of
// docs/ (pages gives the order), in order, into one new bash (no AUDITLOG_* variable, `set -euo
// pipefail`). Any failing command fails the test; the documented answers
// are checked where the README states them. Only the port changes.
func TestREADME(t *testing.T) {
	for _, tool := range []string{"make", "bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the README test needs %s: %v", tool, err)
			}
			t.Skipf("the README test needs %s: %v", tool, err)
		}
	}
	var blocks []block
	skipped := 0
	for _, page := range allPages(t) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		b, s := shellBlocks(t, page, string(raw))
		blocks, skipped = append(blocks, b...), skipped+s
	}
	if len(blocks) < 15 || skipped < 5 {
		t.Fatalf("found %d shell blocks to run and %d skipped: the pages or their markers changed", len(blocks), skipped)
	}
	dir := copyRepo(t, "..")
	addr := testenv.FreeAddr(t)
	server := startDemo(t, dir, addr)
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, b := range blocks {
		fmt.Fprintf(&script, "printf '\\n### %s:%d\\n'\n%s", strings.TrimPrefix(b.page, "../"), b.line, b.text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", strings.ReplaceAll(script.String(), "127.0.0.1:8080", addr))
	sh.Dir = dir
	sh.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's commands failed (%v); the end of their output:\n%s\n--- make demo:\n%s", err, tail(out, 6000), tail([]byte(server.String()), 3000))
	}
	for _, want := range []string{
		`"total":{"value":531,"relation":"eq"}`,                 // the deleted queues of the demo
		`"id":"evt_audit_01a1fd32-3660-722a-ad1b-4f22d9fe2784"`, // the event shown exists
		`"accepted":10,`, `"duplicates":10,`, `"rejected":1,`, `"field":"[0].tenantId"`, // nothing valid: a 400 naming each problem
		`"field":"pageSize"`, `"field":"action"`, // the 400 names both
		"id,timestamp,tenantId,actor.id", // the CSV header
		`"state":"done"`, ".eml",
		`"changedFields":["greeting","version"]`,                                                 // the IVR's history
		`"sourceEventId":"evt_audit_01a1fd32-3660-722a-ad1b-4f22d9fe2784"`, `"status":"pending"`, // the restore
		"auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7\n", "\nok\n", // the checkpoint, tlogcheck
		`"msg":"checkpoint extends the kept one"`, // the witness
		"stored and intact, 0 deleted by retention as the log records; the tree matches the checkpoint auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7", // log verify
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the README's commands did not print %s", want)
		}
	}
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}

// startDemo runs `make demo` in dir on addr, in its own process group,
// and waits until it serves; the server is stopped when the test ends.
func startDemo(t *testing.T, dir, addr string) *testenv.SyncBuffer {
	t.Helper()
	out := &testenv.SyncBuffer{}
	cmd := exec.Command("make", "demo")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AUDITLOG_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "AUDITLOG_HTTP_ADDR="+addr)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(5 * time.Minute) // a cold build of the copy
	for {
		select {
		case err := <-exited:
			t.Fatalf("make demo exited: %v\n%s", err, out.String())
		default:
		}
		if res, err := client.Get("http://" + addr + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return out
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("make demo did not serve on %s:\n%s", addr, out.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// copyRepo copies the repository's sources (not its build output, data or
// VCS metadata) into a temporary directory, as a fresh clone would be.
func copyRepo(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	skip := map[string]bool{".git": true, "bin": true, "data": true, ".bench": true, "node_modules": true, ".env": true}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if skip[d.Name()] && rel != "." {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(p, target, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
