package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"strings"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// bearer adds a token to every request of a standard client.
type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// TestAStandardClientReadsEveryEntry (issue 41): an unmodified C2SP
// tlog-tiles client, torchwood's Client over its TileFetcher, reads every
// entry of the tenant's log from the API's tiles and entry bundles and
// authenticates each against the checkpoint (opened with note and the
// tenant's key alone); each entry is the documented record, and the
// event the API returns matches it: the SHA-256 of its canonical
// encoding (keys sorted, no white space, no HTML escaping, numbers as
// given), computed with encoding/json (storetest.CanonicalJSON). On SQLite an event deleted
// behind the service keeps its entry.
func TestAStandardClientReadsEveryEntry(t *testing.T) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { standardClientEntries(t, vars(t)) })
	}
}

func standardClientEntries(t *testing.T, storeVars map[string]string) {
	ctx := context.Background()
	vars := with(with(map[string]string{}, storeVars), map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_PERIODIC_EXPORT": "false"})
	m := startMain(t, "serve", vars)
	defer m.Close()
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	ingestDemo(t, c, 61, 300) // more than one bundle of 256
	waitCheckpoint(t, c, tok, func(size, total int64) bool { return size == total && total >= 300 })
	var key struct{ VerifierKey string }
	if _, body := c.do("GET", "/api/log-key?tenant="+demoTenant, "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	v, err := note.NewVerifier(key.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	_, signed := c.do("GET", "/api/log/checkpoint", tok, nil)
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		t.Fatalf("checkpoint: %v\n%s", err, signed)
	}
	cp, err := vlog.ParseCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	fetcher, err := torchwood.NewTileFetcher(c.base+"/api/log/", torchwood.WithHTTPClient(&http.Client{Transport: bearer{tok}, Timeout: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	tc, err := torchwood.NewClient(fetcher)
	if err != nil {
		t.Fatal(err)
	}
	// The client leaves the trailing partial bundle to a later call (one
	// that starts at it fetches it), as a client following a log does.
	read := int64(0)
	for before := int64(-1); read < cp.Size && read != before; {
		before = read
		for i, entry := range tc.Entries(ctx, tlog.Tree{N: cp.Size, Hash: cp.Root}, read) {
			if i != read {
				t.Fatalf("entry %d after %d", i, read)
			}
			read++
			lines := strings.Split(string(entry), "\n")
			if len(lines) != 4 || lines[0] != "auditlog-event-v2" || lines[3] != "" {
				t.Fatalf("entry %d is not the documented record: %q", i, entry)
			}
			if i%37 == 0 || i == cp.Size-1 { // the events against their entries
				code, body := c.do("GET", "/api/audit-logs/"+lines[1], tok, nil)
				if code != 200 {
					t.Fatalf("event %s: %d", lines[1], code)
				}
				sum := sha256.Sum256(storetest.CanonicalJSON(t, body))
				if base64.StdEncoding.EncodeToString(sum[:]) != lines[2] {
					t.Fatalf("event %s does not match its entry %q", lines[1], entry)
				}
			}
		}
		if err := tc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tc.Err(); err != nil || read != cp.Size {
		t.Fatalf("the client read %d of %d entries: %v", read, cp.Size, err)
	}
	if storeVars["AUDITLOG_STORE"] == "elasticsearch" {
		return
	}
	// An event deleted behind the service keeps its entry (the leaf
	// holds its digest): a new client still reads the first bundle.
	db := openStoreFile(t, storeVars)
	if _, err := db.Exec(`DELETE FROM events WHERE seq = (SELECT min(seq) FROM events WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?))`, demoTenant); err != nil {
		t.Fatal(err)
	}
	db.Close()
	again, _ := torchwood.NewClient(fetcher)
	count := 0
	for range again.Entries(ctx, tlog.Tree{N: cp.Size, Hash: cp.Root}, 0) {
		count++
	}
	if err := again.Err(); err != nil || count < 256 {
		t.Fatalf("after a deletion the client read %d entries: %v", count, err)
	}
}
