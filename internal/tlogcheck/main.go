// Command tlogcheck checks a tenant's verifiable log through the public
// API the way an outside auditor would, with the standard libraries only
// (golang.org/x/mod/sumdb/note and tlog, and the standard library): it
// imports none of the service's packages, so it shares none of the
// service's code or mistakes. It fetches the checkpoint key, the signed
// checkpoint, and for each event given its JSON and inclusion proof;
// computes the leaf hash from the event itself (the canonical encoding
// docs/event.md documents); and checks the proof, then a consistency proof from
// an earlier tree size. Exit 0: everything checks; 1: something does not
// (said on stderr); 2: usage.
//
//	go run ./internal/tlogcheck -base http://127.0.0.1:8080 -token "$TOKEN" -from 3 evt_audit_…
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func main() {
	base := flag.String("base", "", "the service's address")
	token := flag.String("token", "", "a bearer token of the tenant")
	from := flag.Int64("from", 0, "an earlier tree size to check consistency from (0: none)")
	flag.Parse()
	if *base == "" || *token == "" {
		fmt.Fprintln(os.Stderr, "usage: tlogcheck -base URL -token T [-from N] event-id...")
		os.Exit(2)
	}
	c := client{base: *base, token: *token}
	if err := check(c, *from, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func check(c client, from int64, ids []string) error {
	text, err := c.get("/api/log/checkpoint")
	if err != nil {
		return err
	}
	// The checkpoint is signed under its origin's name
	// (<deployment>/tenants/<tenant>): the key of that name is the
	// service's key for the tenant.
	origin, _, _ := strings.Cut(string(text), "\n")
	_, tenant, ok := strings.Cut(origin, "/tenants/")
	if !ok {
		return fmt.Errorf("the checkpoint's origin %q names no tenant", origin)
	}
	var key struct{ VerifierKey string }
	if err := c.json("/api/log-key?tenant="+url.QueryEscape(tenant), &key); err != nil {
		return err
	}
	v, err := note.NewVerifier(key.VerifierKey)
	if err != nil {
		return fmt.Errorf("the log key: %w", err)
	}
	n, err := note.Open(text, note.VerifierList(v))
	if err != nil {
		return fmt.Errorf("the checkpoint's signature: %w", err)
	}
	size, root, err := parseCheckpoint(n.Text)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := checkEvent(c, id, size, root); err != nil {
			return err
		}
	}
	if from > 0 {
		var cv struct {
			From, To         int64
			FromRoot, ToRoot string
			Proof            []string
		}
		if err := c.json(fmt.Sprintf("/api/log/consistency?from=%d&to=%d", from, size), &cv); err != nil {
			return err
		}
		proof, err := hashes(cv.Proof)
		if err != nil {
			return err
		}
		old, err := hash(cv.FromRoot)
		if err != nil {
			return err
		}
		if err := tlog.CheckTree(tlog.TreeProof(proof), size, root, from, old); err != nil {
			return fmt.Errorf("tree %d does not extend tree %d: %w", size, from, err)
		}
	}
	return nil
}

// checkEvent checks one event's inclusion in the tree of the checkpoint.
func checkEvent(c client, id string, size int64, root tlog.Hash) error {
	event, err := c.get("/api/audit-logs/" + id)
	if err != nil {
		return err
	}
	var p struct {
		LeafIndex, TreeSize int64
		Proof               []string
	}
	if err := c.json(fmt.Sprintf("/api/log/proof?event=%s&size=%d", id, size), &p); err != nil {
		return err
	}
	proof, err := hashes(p.Proof)
	if err != nil {
		return err
	}
	data, err := canonical(event)
	if err != nil {
		return err
	}
	// The leaf is the RFC 6962 leaf hash of the entry docs/event.md documents
	// (auditlog-event-v2: the format's name, the event id and the
	// base64 SHA-256 of the canonical encoding, a line each), or, for a
	// leaf sealed before that format, of the canonical encoding itself.
	var ev struct{ ID string }
	if err := json.Unmarshal(event, &ev); err != nil {
		return err
	}
	digest := sha256.Sum256(data)
	entry := "auditlog-event-v2\n" + ev.ID + "\n" + base64.StdEncoding.EncodeToString(digest[:]) + "\n"
	if tlog.CheckRecord(tlog.RecordProof(proof), size, root, p.LeafIndex, tlog.RecordHash([]byte(entry))) == nil {
		return nil
	}
	if err := tlog.CheckRecord(tlog.RecordProof(proof), size, root, p.LeafIndex, tlog.RecordHash(data)); err != nil {
		return fmt.Errorf("%s is not in the signed tree of size %d: %w", id, size, err)
	}
	return nil
}

// canonical is the leaf encoding docs/event.md documents: the event's JSON with
// object keys sorted, no white space, no HTML escaping, numbers as given.
func canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// parseCheckpoint reads a C2SP checkpoint body: origin, size, root.
func parseCheckpoint(text string) (int64, tlog.Hash, error) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 {
		return 0, tlog.Hash{}, fmt.Errorf("not a checkpoint: %q", text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return 0, tlog.Hash{}, fmt.Errorf("checkpoint size %q", lines[1])
	}
	root, err := hash(lines[2])
	return size, root, err
}

func hash(s string) (tlog.Hash, error) {
	var h tlog.Hash
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("not a base64 SHA-256 hash: %q", s)
	}
	copy(h[:], b)
	return h, nil
}

func hashes(list []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(list))
	for i, s := range list {
		h, err := hash(s)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

type client struct{ base, token string }

func (c client) get(path string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %s", path, res.StatusCode, b)
	}
	return b, err
}

func (c client) json(path string, v any) error {
	b, err := c.get(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	return err
}
