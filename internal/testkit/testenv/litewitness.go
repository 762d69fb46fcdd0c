package testenv

import (
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	_ "modernc.org/sqlite" // litewitness's database
)

// Litewitness is a real litewitness (filippo.io/torchwood/cmd/litewitness,
// an independent implementation of C2SP tlog-witness) started for one
// test, with its key in an ssh-agent as litewitness requires (the agent
// is golang.org/x/crypto/ssh/agent's keyring, serving the agent protocol
// on a Unix socket), and the logs it knows registered in its database as witnessctl does
// (AddLog). scripts/services.sh builds it and sets
// AUDITLOG_TEST_LITEWITNESS to its directory.
type Litewitness struct {
	t        testing.TB
	bin, db  string
	Name     string // the witness's name
	URL      string // where it listens
	Key      string // its verifier key (cosignature/v1), as it printed it
	addr     string
	sock, fp string
	mu       sync.Mutex
	cmd      *exec.Cmd
}

// StartLitewitness starts a litewitness named name, stopped at the end of
// the test. With CI=true, a missing build fails the test.
func StartLitewitness(t testing.TB, name string) *Litewitness {
	t.Helper()
	bin := require(t, "AUDITLOG_TEST_LITEWITNESS", os.Getenv("AUDITLOG_TEST_LITEWITNESS"))
	_, priv, _ := ed25519.GenerateKey(nil)
	sockDir, err := os.MkdirTemp("", "lw") // a Unix socket's path is short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	w := &Litewitness{t: t, bin: bin, db: filepath.Join(t.TempDir(), "litewitness.db"), Name: name, sock: filepath.Join(sockDir, "agent.sock")}
	w.serveAgent(priv)
	pub, _ := ssh.NewPublicKey(priv.Public())
	w.fp = ssh.FingerprintSHA256(pub)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.addr = ln.Addr().String()
	ln.Close()
	w.URL = "http://" + w.addr
	w.Start()
	t.Cleanup(w.Stop)
	return w
}

// serveAgent serves an ssh-agent holding key on w.sock until the test
// ends.
func (w *Litewitness) serveAgent(key ed25519.PrivateKey) {
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		w.t.Fatal(err)
	}
	ln, err := net.Listen("unix", w.sock)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _ = agent.ServeAgent(keyring, c) }()
		}
	}()
}

var vkeyLine = regexp.MustCompile(`vkey=(\S+)`)

// Start starts litewitness (again, after Stop: same database, same
// key, same address) and waits until it listens.
func (w *Litewitness) Start() {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out SyncBuffer
	cmd := exec.Command(filepath.Join(w.bin, "litewitness"), "-db", w.db, "-name", w.Name, "-key", w.fp, "-ssh-agent", w.sock, "-listen", w.addr)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("litewitness: %v", err)
	}
	w.cmd = cmd
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", w.addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			w.t.Fatalf("litewitness did not listen on %s:\n%s", w.addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m := vkeyLine.FindStringSubmatch(out.String()); m != nil {
		w.Key = m[1]
	}
	if w.Key == "" {
		w.t.Fatalf("litewitness printed no verifier key:\n%s", out.String())
	}
}

// Stop stops litewitness (a witness that is down).
func (w *Litewitness) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd != nil && w.cmd.Process != nil {
		_ = w.cmd.Process.Kill()
		_ = w.cmd.Wait()
	}
	w.cmd = nil
}

// AddLog registers a log as witnessctl add-log and add-key do: the
// origin at size 0 (the empty tree's hash), and the key its checkpoints
// are signed with, whose name must be the origin. witnessctl itself is
// not built here (it needs sigsum.org/sigsum-go, which the module proxy
// refuses); these are its two statements, on the database litewitness
// created.
func (w *Litewitness) AddLog(origin, vkey string) {
	w.t.Helper()
	db, err := sql.Open("sqlite", "file:"+w.db+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	empty := sha256.Sum256(nil)
	if _, err := db.Exec(`INSERT INTO log (origin, tree_size, tree_hash) VALUES (?, 0, ?)`, origin, base64.StdEncoding.EncodeToString(empty[:])); err != nil {
		w.t.Fatalf("add-log %s: %v", origin, err)
	}
	if _, err := db.Exec(`INSERT INTO key (origin, key) VALUES (?, ?)`, origin, vkey); err != nil {
		w.t.Fatalf("add-key %s: %v", origin, err)
	}
}

// Size is the tree size the witness last cosigned of origin's log.
func (w *Litewitness) Size(origin string) int64 {
	w.t.Helper()
	db, err := sql.Open("sqlite", "file:"+w.db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT tree_size FROM log WHERE origin = ?`, origin).Scan(&n); err != nil {
		w.t.Fatalf("the witness's size of %s: %v", origin, err)
	}
	return n
}

// OtherWitnessKey is the key of a witness that cosigns nothing here.
func OtherWitnessKey(t testing.TB) string {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(nil)
	s, err := torchwood.NewCosignatureSigner("witness.test/other", priv)
	if err != nil {
		t.Fatal(err)
	}
	return s.Verifier().String()
}
