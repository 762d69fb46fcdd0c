package main

import (
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/periodicexport"
)

// The insider suite (issue 53): someone who can write the database or
// the cluster, and holds no key file, attacks the log; each attack is a
// test of its own, on both stores where the store allows it, and each
// asserts the finding that names it. Before issue 53, an inserted event
// was sealed and verified, a planted key was published, a rollback passed
// log verify, a plan edited in the database purged, a truncated tree was
// an internal error, and a malformed row was a 500.

// insider is a serve on one store, the demo tenant's admin token and the
// log key pinned from it.
type insider struct {
	t     *testing.T
	vars  map[string]string
	m     *Main
	c     client
	tok   string
	key   string
	store string
}

func newInsider(t *testing.T, storeVars map[string]string, extra map[string]string) *insider {
	t.Helper()
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc",
		"AUDITLOG_LOG_SEAL_EVERY": "100ms", "AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_LOG_LEVEL": "warn"}
	for k, v := range storeVars {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	in := &insider{t: t, vars: vars, store: "sqlite"}
	if vars["AUDITLOG_STORE"] == "elasticsearch" {
		in.store = "elasticsearch"
	}
	in.tok, _ = api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	in.start()
	var key struct{ VerifierKey string }
	if _, body := in.c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil {
		t.Fatalf("log key: %s", body)
	}
	in.key = key.VerifierKey
	return in
}

func (in *insider) start() {
	in.m = startMain(in.t, "serve", in.vars)
	in.c = client{in.t, "http://" + in.m.Addr()}
}

func (in *insider) restart() {
	in.m.Close()
	in.start()
}

// ingest posts n demo events and waits until every event is sealed.
// ingest posts n events of seed and waits until the list shows them all
// and the checkpoint holds every event listed. (Waiting for the list's
// total alone passed before Elasticsearch's refresh showed the new
// events: the checkpoint of the earlier ones matched the earlier total.)
func (in *insider) ingest(seed uint64, n int) []audit.Event {
	in.t.Helper()
	before := in.listed()
	evs, _ := ingestDemo(in.t, in.c, seed, n)
	waitCheckpoint(in.t, in.c, in.tok, func(size, total int64) bool { return total >= before+int64(n) && size >= total })
	return evs
}

// listed is the number of events the list shows.
func (in *insider) listed() int64 {
	in.t.Helper()
	var lr api.ListResponse
	if code, body := in.c.do("GET", "/api/audit-logs?pageSize=1", in.tok, nil); code != 200 || json.Unmarshal(body, &lr) != nil {
		in.t.Fatalf("list: %d %s", code, body)
	}
	return lr.Total.Value
}

// sealed waits until the checkpoint holds every event the list shows.
func (in *insider) sealed() {
	in.t.Helper()
	waitCheckpoint(in.t, in.c, in.tok, func(size, total int64) bool { return size >= total && total > 0 })
}

// logVerify runs auditlog log verify of the demo tenant with the pinned
// key and args; it returns the exit code and what it printed.
func (in *insider) logVerify(args ...string) (int, string) {
	in.t.Helper()
	var out, errOut strings.Builder
	code := run(append([]string{"log", "verify", "--tenant", demoTenant, "--key", in.key, "--grace", "0"}, args...), env(in.vars), &out, &errOut)
	return code, out.String() + errOut.String()
}

// db opens the embedded store's database behind the service.
func (in *insider) db() *sql.DB {
	in.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(in.vars["AUDITLOG_DATA_DIR"], "audit.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		in.t.Fatal(err)
	}
	in.t.Cleanup(func() { db.Close() })
	return db
}

func (in *insider) exec(stmt string, args ...any) {
	in.t.Helper()
	if _, err := in.db().Exec(stmt, args...); err != nil {
		in.t.Fatalf("%s: %v", stmt, err)
	}
}

// es is the cluster's base URL and the store's index prefix.
func (in *insider) es() (string, string) {
	return in.vars["AUDITLOG_ES_URL"], in.vars["AUDITLOG_ES_INDEX_PREFIX"]
}

// rewriteDoc writes d's source back in place.
func (in *insider) rewriteDoc(d esDoc) {
	in.t.Helper()
	url, _ := in.es()
	esRewrite(in.t, url, d)
}

// esDocs reads the demo tenant's documents.
func (in *insider) esDocs() []esDoc {
	in.t.Helper()
	url, prefix := in.es()
	esDo(in.t, "POST", url+"/"+prefix+"-events-*/_refresh", "", nil)
	return esSearchDocs(in.t, url, prefix, `{"size":10000,"query":{"term":{"tenantId":"`+demoTenant+`"}}}`)
}

// streamOf is the data stream of a backing index (.ds-<stream>-<date>-<n>).
func streamOf(index string) string {
	s := strings.TrimPrefix(index, ".ds-")
	for range 2 {
		s = s[:strings.LastIndexByte(s, '-')]
	}
	return s
}

// plant stores e behind the service, as someone with the store does:
// on SQLite a row of events with its text index row; on Elasticsearch a
// document in the tenant's data stream with a sealing ticket that carries
// its leaf hash. Neither has an acceptance tag: no key file is at hand.
func (in *insider) plant(e audit.Event) {
	in.t.Helper()
	body, _ := json.Marshal(e)
	if in.store == "sqlite" {
		in.exec(`INSERT INTO events (id, tenant_no, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome, body, actor_role, actor_ip_key, request_id)
			VALUES (auditlog_id_key(?), (SELECT no FROM tenant_numbers WHERE tenant_id = ?), ?, auditlog_uuid_key(lower(?)), ?, ?, ?, auditlog_uuid_key(lower(?)), 0, ?, ?, ?, ?, x'', '')`, e.ID, e.TenantID, e.Timestamp.UnixMilli(), e.Actor.ID, strings.ToLower(e.Actor.Email),
			e.Action, e.Resource.Type, e.Resource.ID, e.Category, e.Outcome, body, e.Actor.Role)
		// Its text row holds what the store makes searchable of an event
		// without changes (e-mail, user agent, resource id), and the
		// hourly counts take it in: nothing about it is out of place but
		// its missing tag.
		in.exec(`INSERT INTO events_fts (rowid, search, reason) VALUES ((SELECT seq FROM events WHERE id = auditlog_id_key(?)), ?, '')`, e.ID,
			e.Actor.Email+" "+e.Actor.UserAgent+" "+e.Resource.ID)
		hour := e.Timestamp.UnixMilli() / 3_600_000 * 3_600_000
		in.exec(`INSERT INTO event_rollup VALUES (?, ?, ?, ?, ?, ?, 0, 1) ON CONFLICT DO UPDATE SET n = n + 1`,
			e.TenantID, hour, e.Action, e.Resource.Type, e.Category, e.Outcome)
		in.exec(`INSERT INTO event_rollup_actor VALUES (?, ?, ?, 1) ON CONFLICT DO UPDATE SET n = n + 1`, e.TenantID, strings.ToLower(e.Actor.Email), hour)
		return
	}
	url, prefix := in.es()
	like := in.esDocs()[0]
	doc := map[string]any{"@timestamp": e.Timestamp, "id": e.ID, "tenantId": e.TenantID, "actor": e.Actor, "action": e.Action,
		"resource": e.Resource, "crossTenant": false, "category": e.Category, "outcome": e.Outcome}
	docID := e.ID
	if strings.Contains(like.ID, ":") {
		docID = e.TenantID + ":" + e.ID
	}
	b, _ := json.Marshal(doc)
	q := "?refresh=true"
	if like.Route != "" {
		q += "&routing=" + like.Route
	}
	esDo(in.t, "PUT", url+"/"+streamOf(like.Index)+"/_create/"+docID+q, string(b), nil)
	d := vlog.EventDigest(&e)
	h := vlog.LeafHash(e)
	ref := map[string]any{"t": e.TenantID, "id": e.ID, "d": docID, "r": like.Route, "h": h, "dg": d[:]}
	ticket, _ := json.Marshal(map[string]any{"kind": "ticket", "at": time.Now().UnixMilli(), "n": 1, "refs": []any{ref}})
	esDo(in.t, "POST", url+"/"+prefix+"-seal-queue/_doc?refresh=true", string(ticket), nil)
}

// forEachStore runs f on a fresh store of each kind.
func forEachStore(t *testing.T, f func(t *testing.T, storeVars map[string]string)) {
	for name, vars := range logStores(t) {
		t.Run(name, func(t *testing.T) { f(t, vars(t)) })
	}
}

// TestAnInsertedEventIsNeverSealed: an event stored behind the service
// (no request, no token, no acceptance tag), with its text index row, is
// never a leaf: no inclusion proof, /healthz names it, log verify on the
// store names it unaccepted and through the API unsealed; the events
// accepted after it are sealed.
func TestAnInsertedEventIsNeverSealed(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		in := newInsider(t, sv, nil)
		evs := in.ingest(53, 20)
		planted := evs[0]
		planted.ID, planted.Actor.Email = audit.NewID(), "planted@x.example"
		planted.Timestamp = audit.NewTimestamp(time.Now().Add(-time.Minute))
		planted.Diff, planted.Reason = map[string]audit.Change{}, ""
		in.plant(planted)
		after, _ := ingestDemo(t, in.c, 54, 5)
		testenv.Eventually(t, time.Minute, func() error { // the events accepted after it are sealed
			if code, _ := in.c.do("GET", "/api/log/proof?event="+after[4].ID, in.tok, nil); code != 200 {
				return fmt.Errorf("an event accepted after the planted one is not sealed: %d", code)
			}
			return nil
		})
		if code, _ := in.c.do("GET", "/api/log/proof?event="+planted.ID, in.tok, nil); code != 404 {
			t.Fatalf("the planted event has a proof: %d", code)
		}
		testenv.Eventually(t, 20*time.Second, func() error {
			_, body := in.c.do("GET", "/healthz", "", nil)
			if !strings.Contains(string(body), planted.ID) {
				return fmt.Errorf("healthz does not name it: %s", body)
			}
			return nil
		})
		code, out := in.logVerify()
		if code != 1 || !strings.Contains(out, "unaccepted") || !strings.Contains(out, planted.ID) {
			t.Fatalf("log verify on the store: exit %d\n%s", code, out)
		}
		for _, other := range []string{"hourly count", "text index", "misindexed"} { // its text row and rollups are as the store makes them
			if strings.Contains(out, other) {
				t.Fatalf("log verify on the store names more than the missing tag (%s): the plant is not the insider's best\n%s", other, out)
			}
		}
		if code, out := in.logVerify("--api", in.c.base, "--token", in.tok); code != 1 || !strings.Contains(out, "unsealed") || !strings.Contains(out, planted.ID) {
			t.Fatalf("log verify through the API: exit %d\n%s", code, out)
		}
	})
}

// TestARowRewrittenAfterAcceptanceIsNamed: an accepted event rewritten
// before it is sealed (its IP changed) is named. On SQLite a trigger
// rewrites every row as it is inserted: the rows are never sealed, and
// named unaccepted. On Elasticsearch a document edited before the sealer
// reads its ticket is sealed as accepted (the ticket's digest and tag),
// and the document is named altered against its leaf.
func TestARowRewrittenAfterAcceptanceIsNamed(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		if sv["AUDITLOG_STORE"] == "elasticsearch" {
			in := newInsider(t, sv, map[string]string{"AUDITLOG_LOG_SEAL_EVERY": "1m"}) // idle, the sealer waits: the edit comes first
			time.Sleep(time.Second)                                                     // its first, idle round
			evs, _ := ingestDemo(t, in.c, 55, 3)
			for _, d := range in.esDocs() {
				if d.Source["id"] == evs[1].ID {
					d.Source["actor"].(map[string]any)["ip"] = "203.0.113.66"
					in.rewriteDoc(d)
				}
			}
			in.vars["AUDITLOG_LOG_SEAL_EVERY"] = "100ms"
			in.restart()
			in.sealed()
			if code, out := in.logVerify(); code != 1 || !strings.Contains(out, "altered") || !strings.Contains(out, evs[1].ID) {
				t.Fatalf("log verify: exit %d\n%s", code, out)
			}
			return
		}
		in := newInsider(t, sv, nil)
		in.ingest(56, 5)
		in.exec(`CREATE TRIGGER rewrite_ip AFTER INSERT ON events BEGIN
			UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.ip', '203.0.113.66') AS BLOB) WHERE seq = NEW.seq; END`)
		evs, _ := ingestDemo(t, in.c, 57, 3)
		time.Sleep(time.Second) // ten sealing rounds
		for _, e := range evs {
			if code, _ := in.c.do("GET", "/api/log/proof?event="+e.ID, in.tok, nil); code != 404 {
				t.Fatalf("the rewritten %s was sealed: %d", e.ID, code)
			}
		}
		code, out := in.logVerify()
		if code != 1 || strings.Count(out, "unaccepted") != 3 || !strings.Contains(out, "does not match the event as stored") {
			t.Fatalf("log verify: exit %d\n%s", code, out)
		}
	})
}

// TestAKeyPlantedInTheStoreIsNeitherUsedNorPublished: the rows an earlier
// version kept keys in (a signing key's seed, a retired public key, a
// masking key), planted by an insider, change nothing a restart reads:
// the log key and the export keys published are the configured ones
// alone, and log verify names each row.
func TestAKeyPlantedInTheStoreIsNeitherUsedNorPublished(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		in := newInsider(t, sv, nil)
		in.ingest(58, 5)
		_, exportKeysBefore := in.c.do("GET", "/api/export-keys", "", nil)
		pub, priv, _ := ed25519GenerateKey()
		planted := map[string][]byte{"periodic-signing-key": priv.Seed(), "retired-signing-public-key": periodicPublicPEM(pub), "secret-mask-v1": []byte("planted-masking-key-of-32-bytes!!")}
		for name, v := range planted {
			if in.store == "sqlite" {
				in.exec(`INSERT INTO keys (name, value, created_at) VALUES (?, ?, 0)`, name, v)
				continue
			}
			url, prefix := in.es()
			b, _ := json.Marshal(map[string]any{"value": v})
			esDo(t, "PUT", url+"/"+prefix+"-keys/_doc/"+name+"?refresh=true", string(b), nil)
		}
		in.restart()
		var key struct {
			VerifierKey string
			EarlierKeys []string
		}
		if _, body := in.c.do("GET", "/api/log-key", "", nil); json.Unmarshal(body, &key) != nil || key.VerifierKey != in.key || len(key.EarlierKeys) != 0 {
			t.Fatalf("the log key after the plant: %+v, want %s and no earlier key", key, in.key)
		}
		if _, body := in.c.do("GET", "/api/export-keys", "", nil); string(body) != string(exportKeysBefore) {
			t.Fatalf("the export keys changed: %s, were %s", body, exportKeysBefore)
		}
		code, out := in.logVerify()
		if code != 1 || strings.Count(out, "storedkey") != 3 {
			t.Fatalf("log verify: exit %d\n%s", code, out)
		}
	})
}

// TestARollbackIsRefused: the store put back to an older copy of itself
// (SQLite: the database file; Elasticsearch: the log's index) passes a
// verifier with no memory, and is refused by name (rollback) by one that
// kept what it verified before (--state).
func TestARollbackIsRefused(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		in := newInsider(t, sv, nil)
		in.ingest(59, 20)
		state := t.TempDir()
		restore := in.snapshot()
		in.ingest(60, 10)
		if code, out := in.logVerify("--state", state); code != 0 {
			t.Fatalf("log verify before: exit %d\n%s", code, out)
		}
		in.m.Close()
		restore()
		in.start()
		code, out := in.logVerify("--state", state)
		if code != 1 || !strings.Contains(out, "rollback") {
			t.Fatalf("log verify with memory of the rolled-back log: exit %d\n%s", code, out)
		}
		if code, out := in.logVerify("--state", "none"); strings.Contains(out, "rollback") {
			t.Fatalf("a verifier with no memory named a rollback: exit %d\n%s", code, out)
		}
	})
}

// snapshot copies the store's log as it is now, and returns what puts it
// back (the service stopped): the database (VACUUM INTO, a consistent
// copy) on SQLite; the log's index (its mapping and documents) on
// Elasticsearch.
func (in *insider) snapshot() func() {
	in.t.Helper()
	if in.store == "sqlite" {
		dir := in.vars["AUDITLOG_DATA_DIR"]
		copied := filepath.Join(in.t.TempDir(), "audit.db")
		in.exec(`VACUUM INTO ?`, copied)
		return func() {
			for _, f := range []string{"audit.db", "audit.db-wal", "audit.db-shm"} {
				if err := removeFile(filepath.Join(dir, f)); err != nil {
					in.t.Fatal(err)
				}
			}
			copyFiles(in.t, filepath.Dir(copied), dir, "audit.db")
		}
	}
	url, prefix := in.es()
	index := url + "/" + prefix + "-tlog"
	var mapping map[string]struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	esDo(in.t, "GET", index+"/_mapping", "", &mapping)
	esDo(in.t, "POST", index+"/_refresh", "", nil)
	var docs struct {
		Hits struct {
			Hits []struct {
				ID     string          `json:"_id"`
				Source json.RawMessage `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	esDo(in.t, "POST", index+"/_search", `{"size":10000,"query":{"match_all":{}}}`, &docs)
	return func() {
		esDo(in.t, "DELETE", index, "", nil)
		for _, m := range mapping {
			esDo(in.t, "PUT", index, `{"mappings":`+string(m.Mappings)+`}`, nil)
		}
		var bulk strings.Builder
		for _, d := range docs.Hits.Hits {
			fmt.Fprintf(&bulk, "{\"index\":{\"_id\":%q}}\n%s\n", d.ID, d.Source)
		}
		esDo(in.t, "POST", index+"/_bulk?refresh=true", bulk.String(), nil)
	}
}

// TestARollbackBehindTheWitnessIsRefusedWithNoMemory: with a witness
// (litewitness) that cosigned the log, a verifier with no memory of its
// own asks it by the witness protocol, and refuses the older copy.
func TestARollbackBehindTheWitnessIsRefusedWithNoMemory(t *testing.T) {
	sv := map[string]string{"AUDITLOG_DATA_DIR": t.TempDir()}
	lw, keyFile, _ := witnessedLog(t, sv)
	in := newInsider(t, sv, map[string]string{"AUDITLOG_PERIODIC_SIGNING_KEY": keyFile, "AUDITLOG_LOG_WITNESSES": lw.URL + " " + lw.Key})
	in.ingest(61, 20)
	waitCosigned(t, in.c, in.tok, 20)
	restore := in.snapshot()
	in.ingest(62, 10)
	waitCosigned(t, in.c, in.tok, 30)
	witness := "--witness=" + lw.URL + " " + lw.Key
	if code, out := in.logVerify(witness, "--state", "none"); code != 0 {
		t.Fatalf("before: exit %d\n%s", code, out)
	}
	in.m.Close()
	restore()
	in.start()
	code, out := in.logVerify(witness, "--state", "none")
	if code != 1 || !strings.Contains(out, "rollback") || !strings.Contains(out, "the witness cosigned a tree of") {
		t.Fatalf("after the rollback: exit %d\n%s", code, out)
	}
}

// TestAPlanEditedInTheStoreDeletesNothing: the tenant's plan set to
// Starter in the store behind the service (no record in its log) deletes
// none of its 40-day-old events at the next retention pass, which puts the
// plan its log records back; log verify finds nothing deleted.
func TestAPlanEditedInTheStoreDeletesNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		in := newInsider(t, sv, nil)
		now := time.Now()
		g := genOld(demoTenant, now.Add(-45*24*time.Hour), now.Add(-35*24*time.Hour), 30)
		payload, _ := json.Marshal(g)
		if code, body := in.c.do("POST", "/api/audit-events", "svc", payload); code != 200 {
			t.Fatalf("ingest: %d %s", code, body)
		}
		in.sealed()
		if in.store == "sqlite" {
			in.exec(`UPDATE tenants SET plan = 'starter' WHERE tenant_id = ?`, demoTenant)
			in.restart() // the purge's first pass runs at start
			time.Sleep(2 * time.Second)
		} else {
			url, prefix := in.es()
			esDo(t, "POST", url+"/"+prefix+"-tenants/_update/"+demoTenant+"?refresh=true", `{"doc":{"plan":"starter"}}`, nil)
			s := esStoreOf(t, in.vars)
			rep, err := s.RunLifecycle(t.Context())
			if err != nil || len(rep.Retention.Restored) != 1 {
				t.Fatalf("lifecycle: %+v %v", rep, err)
			}
		}
		var out, errOut strings.Builder
		if code := run([]string{"tenant", "show", "--tenant", demoTenant}, env(in.vars), &out, &errOut); code != 0 || !strings.Contains(out.String(), "plan enterprise") {
			t.Fatalf("tenant show after the pass: %d\n%s%s", code, out.String(), errOut.String())
		}
		code, vout := in.logVerify()
		if code != 0 || !strings.Contains(vout, "0 deleted by retention") {
			t.Fatalf("log verify: exit %d\n%s", code, vout)
		}
	})
}

// TestATruncatedTreeIsANamedFinding: the last leaves of a tenant's log
// removed behind the service (the checkpoint kept) are named truncated,
// in the store and in a saved copy of what the API served.
func TestATruncatedTreeIsANamedFinding(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		in := newInsider(t, sv, nil)
		in.ingest(63, 20)
		copyDir := t.TempDir()
		if code, out := in.logVerify("--api", in.c.base, "--token", in.tok, "--save", copyDir); code != 0 {
			t.Fatalf("saving a copy: exit %d\n%s", code, out)
		}
		lines := readLines(t, filepath.Join(copyDir, "leaves.jsonl"))
		writeLines(t, filepath.Join(copyDir, "leaves.jsonl"), lines[:len(lines)-3])
		if code, out := in.logVerify("--dir", copyDir); code != 1 || !strings.Contains(out, "truncated") {
			t.Fatalf("the truncated copy: exit %d\n%s", code, out)
		}
		if in.store == "sqlite" {
			in.exec(`DELETE FROM tlog_leaves WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?)
				AND leaf >= (SELECT max(leaf) - 2 FROM tlog_leaves WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?))`, demoTenant, demoTenant)
			if code, out := in.logVerify(); code != 1 || !strings.Contains(out, "truncated") || strings.Contains(out, "internal") {
				t.Fatalf("the truncated store: exit %d\n%s", code, out)
			}
		}
	})
}

// TestAMalformedRowIsNamedThroughTheAPI: a stored event edited into
// something that is no event (a number for the actor; on Elasticsearch a
// string for the diff) turns no read into a 500: the list names it, a
// get answers 409 corrupt naming it, the CSV export has a row naming it,
// and log verify through the API names it malformed.
func TestAMalformedRowIsNamedThroughTheAPI(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		in := newInsider(t, sv, nil)
		evs := in.ingest(64, 10)
		bad := evs[4].ID
		if in.store == "sqlite" {
			in.exec(`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor', 5) AS BLOB) WHERE id = auditlog_id_key(?)`, bad)
		} else {
			for _, d := range in.esDocs() {
				if d.Source["id"] == bad {
					d.Source["diff"] = "not a diff"
					in.rewriteDoc(d)
				}
			}
		}
		code, body := in.c.do("GET", "/api/audit-logs?pageSize=100", in.tok, nil)
		var lr api.ListResponse
		if code != 200 || json.Unmarshal(body, &lr) != nil || len(lr.Unreadable) != 1 || lr.Unreadable[0].ID != bad {
			t.Fatalf("list: %d %s", code, body)
		}
		if code, body := in.c.do("GET", "/api/audit-logs/"+bad, in.tok, nil); code != 409 || !strings.Contains(string(body), `"code":"corrupt"`) || !strings.Contains(string(body), bad) {
			t.Fatalf("get: %d %s", code, body)
		}
		if code, body := in.c.do("GET", "/api/audit-logs/export.csv", in.tok, nil); code != 200 || !strings.Contains(string(body), bad) || !strings.Contains(string(body), "unreadable stored event") {
			t.Fatalf("export: %d %s", code, body)
		}
		if code, out := in.logVerify("--api", in.c.base, "--token", in.tok); code != 1 || !strings.Contains(out, "malformed") || !strings.Contains(out, bad) {
			t.Fatalf("log verify --api: exit %d\n%s", code, out)
		}
	})
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFiles copies the files of from matching pattern into to.
func copyFiles(t *testing.T, from, to, pattern string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(from, pattern))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(to, filepath.Base(f)), b, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func removeFile(path string) error {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func ed25519GenerateKey() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	return ed25519.GenerateKey(nil)
}

func periodicPublicPEM(pub ed25519.PublicKey) []byte { return periodicexport.PublicPEM(pub) }

// genOld generates n events of tenant between start and end.
func genOld(tenant string, start, end time.Time, n int) []audit.Event {
	g := gen.New(gen.Config{Seed: 65, Tenants: 1, FirstTenantID: tenant, WithIDs: true, Start: start, End: end}, n)
	out := make([]audit.Event, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// esStoreOf is the Elasticsearch store of vars, as index opens it (the
// lifecycle pass's).
func esStoreOf(t *testing.T, vars map[string]string) *elasticsearch.Store {
	t.Helper()
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{vars["AUDITLOG_ES_URL"]}, IndexPrefix: vars["AUDITLOG_ES_INDEX_PREFIX"]})
	if err != nil {
		t.Fatal(err)
	}
	return storeOn(t, c)
}
