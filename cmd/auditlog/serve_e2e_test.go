package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

const demoTenant = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

type client struct {
	t    *testing.T
	base string
}

func (c client) do(method, path, tok string, body []byte) (int, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// TestServeEmbeddedFromScratch is the `make run` smoke test: the real
// serve wiring starts on :0 in an empty temporary directory with the
// embedded store, seeds demo events, takes events over HTTP ingest, and
// answers queries, the detail, stats and an export.
func TestServeEmbeddedFromScratch(t *testing.T) {
	dir := t.TempDir()
	m := startMain(t, "serve", map[string]string{
		"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_INGEST_TOKEN": "svc", "AUDITLOG_SEED": "1200",
	})
	c := client{t, "http://" + m.Addr()}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())

	if code, body := c.do("GET", "/readyz", "", nil); code != 200 {
		t.Fatalf("/readyz %d %s", code, body)
	}
	var lr api.ListResponse
	code, body := c.do("GET", "/api/audit-logs?pageSize=10", tok, nil)
	if json.Unmarshal(body, &lr) != nil || code != 200 || lr.Total.Value == 0 || len(lr.Data) != 10 {
		t.Fatalf("seeded demo tenant: %d %s", code, body)
	}
	seeded := lr.Total.Value

	g := gen.New(gen.Config{Seed: 99, Tenants: 1, FirstTenantID: demoTenant}, 50)
	var events []audit.Event
	for i := 0; i < 50; i++ {
		events = append(events, g.Next())
	}
	payload, _ := json.Marshal(events)
	code, body = c.do("POST", "/api/audit-events", "svc", payload)
	var ir api.IngestResponse
	if json.Unmarshal(body, &ir) != nil || code != 200 || ir.Accepted != 50 {
		t.Fatalf("ingest: %d %s", code, body)
	}
	code, body = c.do("GET", "/api/audit-logs?pageSize=1", tok, nil)
	if json.Unmarshal(body, &lr) != nil || code != 200 || lr.Total.Value != seeded+50 {
		t.Fatalf("after ingest: %d %s (want %d events)", code, body, seeded+50)
	}
	code, body = c.do("GET", "/api/audit-logs/"+ir.Items[0].ID, tok, nil)
	if code != 200 {
		t.Fatalf("detail: %d %s", code, body)
	}
	code, body = c.do("GET", "/api/audit-logs/stats?groupBy=category", tok, nil)
	if code != 200 || !bytes.Contains(body, []byte(`"groups"`)) {
		t.Fatalf("stats: %d %s", code, body)
	}
	code, body = c.do("GET", "/api/audit-logs?action=delete&resourceType=queue", tok, nil)
	if code != 200 {
		t.Fatalf("the spec's query: %d %s", code, body)
	}
	// The export: every event of the tenant at once, as CSV.
	res, csvBody := request(t, "GET", c.base+"/api/audit-logs/export.csv", tok, nil)
	if res.StatusCode != 200 {
		t.Fatalf("export: %d %s", res.StatusCode, csvBody)
	}
	if rows := parseCSV(t, csvBody); int64(len(rows)) != seeded+50 {
		t.Fatalf("the export has %d rows, want %d", len(rows), seeded+50)
	}
}

// waitReady polls /readyz of base until it answers 200.
func waitReady(t *testing.T, base string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		res, err := http.Get(base + "/readyz")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("readyz %d", res.StatusCode)
		}
		return nil
	})
}

func freePort(t *testing.T) string { return testenv.FreeAddr(t) }

// TestServeSurvivesSIGKILLDuringIngest kills serve (embedded store) with
// SIGKILL in the middle of a stream of ingest requests. After a restart
// every acknowledged event is there exactly once and the database passes
// SQLite's integrity check.
func TestServeSurvivesSIGKILLDuringIngest(t *testing.T) {
	dir := t.TempDir()
	addr := freePort(t)
	childEnv := []string{"AUDITLOG_HTTP_ADDR=" + addr, "AUDITLOG_DATA_DIR=" + dir, "AUDITLOG_JWT_SECRET=s3cret",
		"AUDITLOG_INGEST_TOKEN=svc", "AUDITLOG_LOG_LEVEL=warn"}
	c := client{t, "http://" + addr}
	waitReady := func() { waitReady(t, c.base) }
	first := child(t, childEnv, "serve")
	waitReady()

	g := gen.New(gen.Config{Seed: 7, Tenants: 1, FirstTenantID: demoTenant}, 100000)
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // ingest until the server dies
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			batch := make([]audit.Event, 200)
			for i := range batch {
				batch[i] = g.Next()
			}
			payload, _ := json.Marshal(batch)
			req, _ := http.NewRequest("POST", c.base+"/api/audit-events", bytes.NewReader(payload))
			req.Header.Set("Authorization", "Bearer svc")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return // killed
			}
			var ir api.IngestResponse
			err = json.NewDecoder(res.Body).Decode(&ir)
			res.Body.Close()
			if err != nil || res.StatusCode != 200 {
				return
			}
			mu.Lock()
			for _, it := range ir.Items {
				if it.Status == "accepted" || it.Status == "duplicate" {
					acked[it.ID] = true
				}
			}
			mu.Unlock()
		}
	}()
	testenv.Eventually(t, time.Minute, func() error {
		mu.Lock()
		defer mu.Unlock()
		if len(acked) < 3000 {
			return fmt.Errorf("%d acknowledged", len(acked))
		}
		return nil
	})
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	close(stop)
	<-done

	second := child(t, childEnv, "serve")
	waitReady()
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	seen := map[string]int{}
	path := "/api/audit-logs?pageSize=1000"
	for {
		code, body := c.do("GET", path, tok, nil)
		var lr api.ListResponse
		if json.Unmarshal(body, &lr) != nil || code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		for _, e := range lr.Data {
			seen[e.ID]++
		}
		if !lr.HasMore {
			break
		}
		path = "/api/audit-logs?pageSize=1000&cursor=" + *lr.NextCursor
	}
	for id := range acked {
		if seen[id] != 1 {
			t.Fatalf("acknowledged event %s present %d times after the crash", id, seen[id])
		}
	}
	t.Logf("%d acknowledged, %d stored after the crash", len(acked), len(seen))
	_ = second.Process.Signal(syscall.SIGTERM)
	_ = second.Wait()

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q %v", check, err)
	}
}
