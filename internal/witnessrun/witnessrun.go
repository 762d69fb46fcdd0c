// Package witnessrun runs litewitness (filippo.io/torchwood/cmd/litewitness,
// an independent implementation of C2SP tlog-witness) for the tests and
// the benchmarks: its key in an ssh-agent, as litewitness requires (the
// agent is golang.org/x/crypto/ssh/agent's keyring serving the agent
// protocol on a Unix socket), and the logs it knows registered in its
// database with the two statements witnessctl add-log and add-key run
// (witnessctl is not built: it needs sigsum.org/sigsum-go, which the Go
// module proxy here refuses). scripts/services.sh builds litewitness and
// sets AUDITLOG_TEST_LITEWITNESS to its directory.
package witnessrun

import (
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	_ "modernc.org/sqlite" // litewitness's database
)

// Witness is one litewitness process and what it needs.
type Witness struct {
	bin, db  string
	Name     string // the witness's name
	URL      string // where it listens
	Key      string // its verifier key (cosignature/v1), as it printed it
	addr     string
	sock, fp string
	agent    net.Listener
	sockDir  string
	mu       sync.Mutex
	cmd      *exec.Cmd
	out      *buffer
}

// Start starts a litewitness named name, its database in dir, from the
// build in bin (AUDITLOG_TEST_LITEWITNESS).
func Start(bin, dir, name string) (*Witness, error) {
	_, priv, _ := ed25519.GenerateKey(nil)
	sockDir, err := os.MkdirTemp("", "lw") // a Unix socket's path is short
	if err != nil {
		return nil, err
	}
	w := &Witness{bin: bin, db: filepath.Join(dir, "litewitness.db"), Name: name, sock: filepath.Join(sockDir, "agent.sock"), sockDir: sockDir}
	if err := w.serveAgent(priv); err != nil {
		w.Close()
		return nil, err
	}
	pub, _ := ssh.NewPublicKey(priv.Public())
	w.fp = ssh.FingerprintSHA256(pub)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		w.Close()
		return nil, err
	}
	w.addr = ln.Addr().String()
	ln.Close()
	w.URL = "http://" + w.addr
	if err := w.Restart(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// serveAgent serves an ssh-agent holding key on w.sock.
func (w *Witness) serveAgent(key ed25519.PrivateKey) error {
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		return err
	}
	ln, err := net.Listen("unix", w.sock)
	if err != nil {
		return err
	}
	w.agent = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _ = agent.ServeAgent(keyring, c) }()
		}
	}()
	return nil
}

var vkeyLine = regexp.MustCompile(`vkey=(\S+)`)

// Restart starts litewitness (again, after Stop: same database, key and
// address) and waits until it listens.
func (w *Witness) Restart() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out = &buffer{}
	cmd := exec.Command(filepath.Join(w.bin, "litewitness"), "-db", w.db, "-name", w.Name, "-key", w.fp, "-ssh-agent", w.sock, "-listen", w.addr)
	cmd.Stdout, cmd.Stderr = w.out, w.out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("litewitness: %w", err)
	}
	w.cmd = cmd
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", w.addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("litewitness did not listen on %s:\n%s", w.addr, w.out.String())
		}
	}
	if m := vkeyLine.FindStringSubmatch(w.out.String()); m != nil {
		w.Key = m[1]
	}
	if w.Key == "" {
		return fmt.Errorf("litewitness printed no verifier key:\n%s", w.out.String())
	}
	return nil
}

// Stop stops litewitness (a witness that is down).
func (w *Witness) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd != nil && w.cmd.Process != nil {
		_ = w.cmd.Process.Kill()
		_ = w.cmd.Wait()
	}
	w.cmd = nil
}

// Close stops litewitness and its agent.
func (w *Witness) Close() {
	w.Stop()
	if w.agent != nil {
		w.agent.Close()
	}
	os.RemoveAll(w.sockDir)
}

// AddLog registers a log as witnessctl add-log and add-key do: the origin
// at size 0 (the empty tree's hash), and the key its checkpoints are
// signed with, whose name must be the origin.
func (w *Witness) AddLog(origin, vkey string) error {
	db, err := w.open()
	if err != nil {
		return err
	}
	defer db.Close()
	empty := sha256.Sum256(nil)
	if _, err := db.Exec(`INSERT INTO log (origin, tree_size, tree_hash) VALUES (?, 0, ?)`, origin, base64.StdEncoding.EncodeToString(empty[:])); err != nil {
		return fmt.Errorf("add-log %s: %w", origin, err)
	}
	if _, err := db.Exec(`INSERT INTO key (origin, key) VALUES (?, ?)`, origin, vkey); err != nil {
		return fmt.Errorf("add-key %s: %w", origin, err)
	}
	return nil
}

// Size is the tree size the witness last cosigned of origin's log.
func (w *Witness) Size(origin string) (int64, error) {
	db, err := w.open()
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	err = db.QueryRow(`SELECT tree_size FROM log WHERE origin = ?`, origin).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("the witness does not know %s", origin)
	}
	return n, err
}

func (w *Witness) open() (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+w.db+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
}

// buffer collects the process's output.
type buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
