package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/mailtest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// October 2026: the exported data sets lie before it ends, and the
// self-audit records of the exports themselves (made now) after.
var octEnd = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

const octEndParam = "2026-11-01T00:00:00.000Z"

// tenantEvents generates n events of one tenant in October 2026.
func tenantEvents(seed uint64, tenant string, n int) []audit.Event {
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, FirstTenantID: tenant, WithIDs: true,
		Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: octEnd}, n)
	out := make([]audit.Event, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// loadES writes events straight into the store of index prefix and makes
// them visible.
func loadES(t *testing.T, esURL, prefix string, events []audit.Event) {
	t.Helper()
	ctx := context.Background()
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(events); i += 2000 {
		res, err := s.WriteEvents(ctx, events[i:min(i+2000, len(events))])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
				t.Fatalf("loading: %v %s", r.Status, r.Reason)
			}
		}
	}
	if err := c.DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func token(t *testing.T, secret string, p audit.Principal) string {
	t.Helper()
	tok, err := api.MintToken([]byte(secret), p, time.Hour, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// request sends one request (a JSON body when there is one) and returns
// the answer with its body read.
func request(t *testing.T, method, u, tok string, body []byte, header ...string) (*http.Response, []byte) {
	t.Helper()
	if body != nil {
		header = append([]string{"Content-Type", "application/json"}, header...)
	}
	return testenv.Send(t, testenv.Request(t, method, u, tok, body, header...))
}

// walk reads every event of a list query through the API, by cursor.
func walk(t *testing.T, base, tok, query string) []audit.Event {
	t.Helper()
	var out []audit.Event
	cursor := ""
	for {
		q := query + "&pageSize=1000"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		res, body := request(t, "GET", base+"/api/audit-logs?"+q, tok, nil)
		var lr api.ListResponse
		if res.StatusCode != 200 || json.Unmarshal(body, &lr) != nil {
			t.Fatalf("list %s: %d %s", q, res.StatusCode, body)
		}
		out = append(out, lr.Data...)
		if lr.NextCursor == nil {
			return out
		}
		cursor = *lr.NextCursor
	}
}

// parseCSV reads an export back as a spreadsheet would and checks the
// header and that no cell starts with a formula character.
func parseCSV(t *testing.T, data []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("the export is not valid CSV: %v", err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(audit.ExportColumns, ",") {
		t.Fatalf("header: %v", rows)
	}
	for i, row := range rows {
		for j, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Fatalf("row %d, column %s starts with a formula character: %q", i, audit.ExportColumns[j], cell)
			}
		}
	}
	return rows[1:]
}

// sameRows compares an export, row for row, with the events of a query.
func sameRows(t *testing.T, rows [][]string, events []audit.Event) {
	t.Helper()
	if len(rows) != len(events) {
		t.Fatalf("%d rows, the query gives %d events", len(rows), len(events))
	}
	for i := range events {
		if want := export.Cells(&events[i]); strings.Join(rows[i], "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("row %d:\n got %q\nwant %q", i, rows[i], want)
		}
	}
}

// waitJob polls a job's status until cond holds.
func waitJob(t *testing.T, base, tok, id string, timeout time.Duration, cond func(api.ExportJobView) error) api.ExportJobView {
	t.Helper()
	var v api.ExportJobView
	testenv.Eventually(t, timeout, func() error {
		req, _ := http.NewRequest("GET", base+"/api/audit-logs/exports/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d %s", res.StatusCode, body)
		}
		v = api.ExportJobView{}
		if err := json.Unmarshal(body, &v); err != nil {
			return err
		}
		return cond(v)
	})
	return v
}

// startJob asks for an export that must become a job (202) and returns it.
func startJob(t *testing.T, method, u, tok string) api.ExportJobView {
	t.Helper()
	res, body := request(t, method, u, tok, nil)
	var job api.ExportJobView
	if res.StatusCode != 202 || json.Unmarshal(body, &job) != nil {
		t.Fatalf("%s %s: %d %s, want 202 and a job", method, u, res.StatusCode, body)
	}
	return job
}

func isDone(v api.ExportJobView) error {
	if v.State == exportjob.Failed {
		return fmt.Errorf("the job failed: %s", v.Error)
	}
	if v.State != exportjob.Done {
		return fmt.Errorf("state %s, %d/%d rows", v.State, v.RowsWritten, v.RowsExpected)
	}
	return nil
}

func esServeEnv(t *testing.T, prefix string) map[string]string {
	return map[string]string{
		"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": testenv.ElasticsearchURL(t), "AUDITLOG_ES_INDEX_PREFIX": prefix,
		"AUDITLOG_PERIODIC_SIGNING_KEY": testKeyFile(t), "AUDITLOG_ACCEPT_KEY": testAcceptKey(t),
		"AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_EXPORT_POLL": "100ms", "AUDITLOG_LOG_LEVEL": "warn",
	}
}

// mailVars points serve at the test SMTP server, STARTTLS required.
func mailVars(m *mailtest.Server) map[string]string {
	return map[string]string{
		"AUDITLOG_SMTP_HOST": m.Host, "AUDITLOG_SMTP_PORT": fmt.Sprint(m.Port), "AUDITLOG_SMTP_USERNAME": m.User,
		"AUDITLOG_SMTP_PASSWORD": m.Password, "AUDITLOG_SMTP_STARTTLS": "required", "AUDITLOG_SMTP_CA_FILE": m.CAFile,
	}
}

// with returns vars with more set.
func with(vars map[string]string, more ...map[string]string) map[string]string {
	for _, m := range more {
		for k, v := range m {
			vars[k] = v
		}
	}
	return vars
}

// selfAudit returns the export records of the tenant's log once there are
// at least n (the store may show writes a moment later).
func selfAudit(t *testing.T, base, tok string, n int) []audit.Event {
	t.Helper()
	var got []audit.Event
	testenv.Eventually(t, 30*time.Second, func() error {
		if got = walk(t, base, tok, "resourceType=audit_export&from="+octEndParam); len(got) < n {
			return fmt.Errorf("%d export records, want %d", len(got), n)
		}
		return nil
	})
	return got
}

// TestExportSync exports exactly 10,000 rows at once (Elasticsearch): the
// file parsed back equals the list query's result row for row, in both
// entry points, gzip-compressed or not. Each export is recorded in the
// tenant's log, crossTenant for an operator.
func TestExportSync(t *testing.T) {
	esURL := testenv.ElasticsearchURL(t)
	prefix := testenv.Name("auditlog-xsync")
	tenantA, tenantB := "4b0f2c1e-5d6a-4e7b-8c9d-0a1b2c3d4e5f", "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a"
	events := tenantEvents(21, tenantA, audit.SyncExportLimit)
	loadES(t, esURL, prefix, append(events, tenantEvents(22, tenantB, 300)...))
	m := startMain(t, "serve", esServeEnv(t, prefix))
	base := "http://" + m.Addr()
	admin := audit.Principal{UserID: "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e", Email: "ana.admin@acme.example", Role: audit.RoleAdmin, TenantID: tenantA}
	tok := token(t, "s3cret", admin)

	want := walk(t, base, tok, "to="+octEndParam)
	if len(want) != audit.SyncExportLimit {
		t.Fatalf("the list gives %d events, want %d", len(want), audit.SyncExportLimit)
	}
	res, body := request(t, "POST", base+"/api/audit-logs/exports?to="+octEndParam, tok, nil)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(res.Header.Get("Content-Disposition"), "attachment; filename=") {
		t.Fatalf("POST exports: %d %v %.300s", res.StatusCode, res.Header, body)
	}
	sameRows(t, parseCSV(t, body), want)

	// The panel's link, with filters, a sort and gzip.
	q := "action=delete,update&sort=actor.email&order=desc&to=" + octEndParam
	want = walk(t, base, tok, q)
	res, body = request(t, "GET", base+"/api/audit-logs/export.csv?"+q, tok, nil, "Accept-Encoding", "gzip")
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("export.csv: %d %v", res.StatusCode, res.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, parseCSV(t, plain), want)

	// The same filters in a JSON body.
	res, body = request(t, "POST", base+"/api/audit-logs/exports", tok, []byte(`{"action":["delete","update"],"sort":"actor.email","order":"desc","to":"`+octEndParam+`"}`))
	if res.StatusCode != 200 {
		t.Fatalf("JSON body: %d %s", res.StatusCode, body)
	}
	sameRows(t, parseCSV(t, body), want)

	// Bad filters: one problem document naming every field.
	res, body = request(t, "POST", base+"/api/audit-logs/exports?action=explode&from=yesterday&async=maybe", tok, nil)
	var p api.Problem
	if res.StatusCode != 400 || json.Unmarshal(body, &p) != nil || len(p.Errors) != 3 {
		t.Fatalf("bad filters: %d %s", res.StatusCode, body)
	}

	// An operator's export: refused without a reason, recorded as a
	// cross-tenant access with it.
	op := audit.Principal{UserID: "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d", Email: "ops@platform.example", Role: audit.RoleSuperadmin, TenantID: tenantA}
	opTok := token(t, "s3cret", op)
	if res, body := request(t, "GET", base+"/api/audit-logs/export.csv?action=delete", opTok, nil); res.StatusCode != 403 {
		t.Fatalf("operator without reason: %d %s", res.StatusCode, body)
	}
	if res, body := request(t, "GET", base+"/api/audit-logs/export.csv?action=delete&to="+octEndParam, opTok, nil, api.ReasonHeader, "ticket CS-42"); res.StatusCode != 200 {
		t.Fatalf("operator export: %d %s", res.StatusCode, body)
	}

	// Every export is in the tenant's log, with its filters, before the
	// file was served; tenant B's log has none of them.
	records := selfAudit(t, base, tok, 4)
	if len(records) != 4 {
		t.Fatalf("%d export records, want 4", len(records))
	}
	var operator int
	for _, e := range records {
		var after struct {
			Mode  string `json:"mode"`
			Rows  int64  `json:"rows"`
			Query string `json:"query"`
		}
		if err := json.Unmarshal(e.After, &after); err != nil || after.Mode != "sync" || e.Action != audit.ActionAccess || e.Category == "" {
			t.Fatalf("export record %s: %s (%v)", e.ID, e.After, err)
		}
		if e.CrossTenant {
			operator++
			if e.Reason != "ticket CS-42" || e.Actor.Email != op.Email || !strings.Contains(after.Query, "action=delete") {
				t.Fatalf("operator record: %+v %s", e, e.After)
			}
		} else if e.Actor.Email != admin.Email || e.Category != audit.CategorySensitiveAccess {
			t.Fatalf("admin record: %+v", e)
		}
	}
	if operator != 1 {
		t.Fatalf("%d cross-tenant export records, want 1", operator)
	}
	bTok := token(t, "s3cret", audit.Principal{UserID: admin.UserID, Email: "b@b.example", Role: audit.RoleAdmin, TenantID: tenantB})
	if got := selfAudit(t, base, bTok, 0); len(got) != 0 {
		t.Fatalf("tenant B sees %d export records of tenant A", len(got))
	}
}

var downloadLink = regexp.MustCompile(`API: +(\S+)`)

// TestExportAsyncS3AndEmail exports 10,001 rows: 202 and a job, which
// runs, stores its file in a real S3-compatible bucket (versitygw) and
// e-mails its owner through a real SMTP server; the e-mailed link leads,
// with the owner's credentials, to a presigned download whose CSV equals
// the query row for row.
func TestExportAsyncS3AndEmail(t *testing.T) {
	esURL := testenv.ElasticsearchURL(t)
	s3env := testenv.S3(t)
	mail := mailtest.Start(t)
	prefix := testenv.Name("auditlog-xasync")
	tenant := "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f"
	loadES(t, esURL, prefix, tenantEvents(23, tenant, audit.SyncExportLimit+1))
	m := startMain(t, "serve", with(esServeEnv(t, prefix), mailVars(mail), map[string]string{
		"AUDITLOG_EXPORT_STORE": "s3", "AUDITLOG_S3_ENDPOINT": s3env.Endpoint, "AUDITLOG_S3_BUCKET": testenv.Name("exports"),
		"AUDITLOG_S3_ACCESS_KEY": s3env.AccessKey, "AUDITLOG_S3_SECRET_KEY": s3env.SecretKey, "AUDITLOG_S3_PATH_STYLE": "true",
		"AUDITLOG_S3_CREATE_BUCKET": "true", "AUDITLOG_S3_PREFIX": "auditlog/", "AUDITLOG_SMTP_FROM": "Audit log <auditlog@platform.example>",
	}))
	base := "http://" + m.Addr()
	owner := audit.Principal{UserID: "7d6c5b4a-3928-4176-9554-433221100fed", Email: "sec.lead@acme.example", Role: audit.RoleAdmin, TenantID: tenant}
	tok := token(t, "s3cret", owner)

	res, body := request(t, "POST", base+"/api/audit-logs/exports", tok, []byte(`{"to":"`+octEndParam+`","sort":"timestamp","order":"asc"}`))
	var job api.ExportJobView
	if res.StatusCode != 202 || json.Unmarshal(body, &job) != nil || job.State != exportjob.Queued || job.RowsExpected != audit.SyncExportLimit+1 ||
		res.Header.Get("Location") != "/api/audit-logs/exports/"+job.ID {
		t.Fatalf("POST exports above the limit: %d %v %s", res.StatusCode, res.Header, body)
	}
	done := waitJob(t, base, tok, job.ID, 2*time.Minute, isDone)
	if done.RowsWritten != audit.SyncExportLimit+1 || done.FileURL == "" || done.ExpiresAt == nil {
		t.Fatalf("done job: %+v", done)
	}

	msg := mail.Wait(t, time.Minute, func(m mailtest.Message) bool { return m.Header.Get("X-Auditlog-Export") == job.ID })
	if len(msg.To) != 1 || msg.To[0] != owner.Email || !msg.TLS || msg.Header.Get("Subject") != "Your audit log export is ready (10,001 rows)" {
		t.Fatalf("e-mail: to %v tls %v subject %q", msg.To, msg.TLS, msg.Header.Get("Subject"))
	}
	link := downloadLink.FindStringSubmatch(msg.Body)
	if link == nil || link[1] != base+"/api/audit-logs/exports/"+job.ID+"/file" {
		t.Fatalf("no download link in:\n%s", msg.Body)
	}
	if res, _ := request(t, "GET", link[1], "", nil); res.StatusCode != 401 {
		t.Fatalf("the link without credentials: %d", res.StatusCode)
	}
	res, _ = request(t, "GET", link[1], tok, nil)
	presigned := res.Header.Get("Location")
	if res.StatusCode != 302 || !strings.HasPrefix(presigned, s3env.Endpoint) || !strings.Contains(presigned, "X-Amz-Signature") {
		t.Fatalf("the link: %d, Location %q", res.StatusCode, presigned)
	}
	// A browser follows the redirect with no credentials of ours.
	dl, err := http.Get(presigned)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(dl.Body)
	dl.Body.Close()
	if err != nil || dl.StatusCode != 200 || !strings.Contains(dl.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("presigned download: %d %v %v", dl.StatusCode, dl.Header, err)
	}
	sameRows(t, parseCSV(t, data), walk(t, base, tok, "to="+octEndParam+"&sort=timestamp&order=asc"))
	// A tampered presigned URL is refused by the bucket.
	if res, _ := request(t, "GET", strings.Replace(presigned, job.ID, "00000000-0000-0000-0000-000000000000", 1), "", nil); res.StatusCode != 403 {
		t.Fatalf("a tampered presigned URL: %d", res.StatusCode)
	}

	recs := selfAudit(t, base, tok, 1)
	if len(recs) != 1 || recs[0].Resource.ID != job.ID || !bytes.Contains(recs[0].After, []byte(`"mode":"async"`)) {
		t.Fatalf("export records: %+v", recs)
	}
}

// TestExportJobsIsolationLimitsAndExpiry runs on the embedded store with
// local files. A job belongs to its tenant and its creator: another
// tenant, or another user of the same tenant, cannot see its status,
// download its file or cancel it, whether guessing ids or reusing its
// URLs. A tenant has at most AUDITLOG_EXPORT_MAX_ACTIVE jobs queued or
// running; the file is served gzip-compressed or plain; cancelling
// deletes the file; and an expired file is deleted.
func TestExportJobsIsolationLimitsAndExpiry(t *testing.T) {
	dir := t.TempDir()
	tenantA, tenantB := "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "6f5e4d3c-2b1a-4098-8776-655443322110"
	m := startMain(t, "serve", map[string]string{
		"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc",
		// Long enough for the checks between the first job's end and its
		// cancellation, on a loaded machine: at 3 s its file once expired
		// first.
		"AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_EXPORT_POLL": "50ms", "AUDITLOG_EXPORT_EXPIRY": "15s", "AUDITLOG_EXPORT_MAX_ACTIVE": "1",
	})
	base := "http://" + m.Addr()
	events := append(tenantEvents(31, tenantA, 700), tenantEvents(32, tenantB, 300)...)
	payload, _ := json.Marshal(events)
	if res, body := request(t, "POST", base+"/api/audit-events", "svc", payload); res.StatusCode != 200 {
		t.Fatalf("ingest: %d %s", res.StatusCode, body)
	}
	alice := token(t, "s3cret", audit.Principal{UserID: "11111111-1111-4111-8111-111111111111", Email: "alice@a.example", Role: audit.RoleAdmin, TenantID: tenantA})
	bob := token(t, "s3cret", audit.Principal{UserID: "22222222-2222-4222-8222-222222222222", Email: "bob@a.example", Role: audit.RoleAdmin, TenantID: tenantA})
	carol := token(t, "s3cret", audit.Principal{UserID: "11111111-1111-4111-8111-111111111111", Email: "carol@b.example", Role: audit.RoleAdmin, TenantID: tenantB})
	opB := token(t, "s3cret", audit.Principal{UserID: "33333333-3333-4333-8333-333333333333", Email: "ops@platform.example", Role: audit.RoleSuperadmin, TenantID: tenantB, Reason: "ticket 7"})

	job := startJob(t, "GET", base+"/api/audit-logs/export.csv?async=true&to="+octEndParam, alice)
	done := waitJob(t, base, alice, job.ID, time.Minute, isDone)
	if done.RowsWritten != 700 {
		t.Fatalf("rows %d, want 700", done.RowsWritten)
	}
	jobURL := base + "/api/audit-logs/exports/" + job.ID
	// The owner gets the file, plain or gzip-compressed.
	res, plain := request(t, "GET", jobURL+"/file", alice, nil, "Accept-Encoding", "identity")
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || !strings.Contains(res.Header.Get("Content-Disposition"), `attachment; filename=audit-log_`) {
		t.Fatalf("file: %d %v", res.StatusCode, res.Header)
	}
	sameRows(t, parseCSV(t, plain), walk(t, base, alice, "to="+octEndParam))
	res, gz := request(t, "GET", jobURL+"/file", alice, nil, "Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip file: %v %v", res.Header, err)
	}
	if unzipped, _ := io.ReadAll(zr); !bytes.Equal(unzipped, plain) {
		t.Fatal("the gzip file differs from the plain one")
	}

	// Nobody else sees the job: not another user of the tenant, not
	// another tenant (even an operator with a reason, and even with the
	// same user id), not by URL, not by guessing.
	for name, tok := range map[string]string{"same tenant, other user": bob, "other tenant, same user id": carol, "operator of another tenant": opB} {
		for _, c := range []struct{ method, url string }{
			{"GET", jobURL}, {"GET", jobURL + "/file"}, {"DELETE", jobURL},
			{"GET", base + "/api/audit-logs/exports/" + "00000000-0000-4000-8000-000000000000"},
			{"GET", base + "/api/audit-logs/exports/not-a-uuid/file"},
		} {
			res, body := request(t, c.method, c.url, tok, nil)
			var p api.Problem
			if res.StatusCode != 404 || json.Unmarshal(body, &p) != nil || strings.Contains(string(body), "alice") {
				t.Errorf("%s: %s %s: %d %s", name, c.method, c.url, res.StatusCode, body)
			}
		}
		res, body := request(t, "GET", base+"/api/audit-logs/exports", tok, nil)
		if res.StatusCode != 200 || strings.Contains(string(body), job.ID) {
			t.Errorf("%s lists alice's job: %d %s", name, res.StatusCode, body)
		}
	}
	if res, body := request(t, "GET", base+"/api/audit-logs/exports", alice, nil); res.StatusCode != 200 || !strings.Contains(string(body), job.ID) {
		t.Fatalf("alice's list: %d %s", res.StatusCode, body)
	}

	// One job at a time for this tenant (MAX_ACTIVE=1): a job held queued
	// by a cancelled-then-recreated sequence shows the limit.
	second := startJob(t, "POST", base+"/api/audit-logs/exports?async=true", bob)
	res3, body3 := request(t, "POST", base+"/api/audit-logs/exports?async=true", alice, nil)
	if st := waitJob(t, base, bob, second.ID, time.Minute, func(v api.ExportJobView) error { return nil }); st.State.Final() {
		// The job ended before the second request: the limit was not
		// reached, so the request must have been accepted.
		if res3.StatusCode != 202 {
			t.Fatalf("a second job after the first ended: %d %s", res3.StatusCode, body3)
		}
	} else if res3.StatusCode != 429 || !strings.Contains(string(body3), "queued or running") {
		t.Fatalf("a second active job of the tenant: %d %s", res3.StatusCode, body3)
	}
	// Tenant B is not limited by tenant A's jobs.
	if res, body := request(t, "POST", base+"/api/audit-logs/exports?async=true", carol, nil); res.StatusCode != 202 {
		t.Fatalf("tenant B: %d %s", res.StatusCode, body)
	}

	// Cancel: the file goes, and the job says so. The job's own file is
	// looked for by its id: the other tenants' jobs started above may
	// still be writing theirs, so a count of files would race them.
	hasFile := func(id string) bool {
		found := false
		filepathWalk(t, dir+"/exports/exports", func(p string) {
			found = found || strings.Contains(filepath.Base(p), id)
		})
		return found
	}
	if !hasFile(job.ID) {
		t.Fatalf("the done job %s has no file before cancelling", job.ID)
	}
	res, body := request(t, "DELETE", jobURL, alice, nil)
	if res.StatusCode != 200 || !strings.Contains(string(body), `"state":"cancelled"`) {
		t.Fatalf("cancel: %d %s", res.StatusCode, body)
	}
	if hasFile(job.ID) {
		t.Fatalf("cancelling left the file of job %s", job.ID)
	}
	if res, body := request(t, "GET", jobURL+"/file", alice, nil); res.StatusCode != 409 {
		t.Fatalf("file of a cancelled job: %d %s", res.StatusCode, body)
	}

	// Expiry (15 s here): the file is deleted and the job says expired.
	res, body = request(t, "POST", base+"/api/audit-logs/exports?async=true&action=delete", carol, nil)
	if res.StatusCode != 202 && res.StatusCode != 429 {
		t.Fatalf("tenant B's second export: %d %s", res.StatusCode, body)
	}
	var third api.ExportJobView
	testenv.Eventually(t, time.Minute, func() error {
		res, body := request(t, "POST", base+"/api/audit-logs/exports?async=true&action=update", alice, nil)
		if res.StatusCode != 202 {
			return fmt.Errorf("%d %s", res.StatusCode, body)
		}
		return json.Unmarshal(body, &third)
	})
	waitJob(t, base, alice, third.ID, time.Minute, isDone)
	expired := waitJob(t, base, alice, third.ID, time.Minute, func(v api.ExportJobView) error {
		if v.State != exportjob.Expired {
			return fmt.Errorf("state %s", v.State)
		}
		return nil
	})
	if expired.FileURL != "" {
		t.Fatalf("an expired job offers a file: %+v", expired)
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		var left []string
		filepathWalk(t, dir+"/exports/exports", func(p string) {
			if strings.Contains(p, third.ID) {
				left = append(left, p)
			}
		})
		if len(left) > 0 {
			return fmt.Errorf("expired file still there: %v", left)
		}
		return nil
	})
}

// TestExportSurvivesStoreOutage takes Elasticsearch away from the server
// in the middle of a job, through a proxy: cut (connections closed and
// refused), or frozen (a hung store: every byte held). After a cut with
// retries left, the job runs again once Elasticsearch is back and ends
// done, e-mailed; with none left, it ends failed and the owner is told
// why. A hung store does not hold the worker past its lease: the attempt
// is given up and the job runs again.
func TestExportSurvivesStoreOutage(t *testing.T) {
	esURL := testenv.ElasticsearchURL(t)
	mail := mailtest.Start(t)
	prefix := testenv.Name("auditlog-xdown")
	tenant := "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
	loadES(t, esURL, prefix, tenantEvents(41, tenant, 20000))
	u, _ := url.Parse(esURL)
	proxy := testenv.StartProxy(t, u.Host)
	// 400 pages of 50 at 10 ms each or more: the scan runs for 4 s at
	// least, so the outage below falls inside it on any machine.
	proxy.SetLatency(10 * time.Millisecond)
	owner := audit.Principal{UserID: "4e5f6a7b-8c9d-4e0f-8a1b-2c3d4e5f6a7b", Email: "owner@acme.example", Role: audit.RoleAdmin, TenantID: tenant}
	tok := token(t, "s3cret", owner)
	const lease = 6 * time.Second

	run := func(attempts string, outage func()) (api.ExportJobView, mailtest.Message) {
		m := startMain(t, "serve", with(esServeEnv(t, prefix), mailVars(mail), map[string]string{
			"AUDITLOG_ES_URL": "http://" + proxy.Addr, "AUDITLOG_EXPORT_SCAN_PAGE": "50", "AUDITLOG_EXPORT_ATTEMPTS": attempts,
			"AUDITLOG_EXPORT_RETRY_DELAY": "200ms", "AUDITLOG_EXPORT_LEASE": lease.String(),
		}))
		defer m.Close()
		base := "http://" + m.Addr()
		job := startJob(t, "POST", base+"/api/audit-logs/exports?async=true&to="+octEndParam, tok)
		// The outage starts once the scan is under way: progress stored.
		waitJob(t, base, tok, job.ID, time.Minute, func(v api.ExportJobView) error {
			if v.State != exportjob.Running || v.RowsWritten == 0 {
				return fmt.Errorf("state %s, %d rows", v.State, v.RowsWritten)
			}
			return nil
		})
		outage()
		end := waitJob(t, base, tok, job.ID, 2*time.Minute, func(v api.ExportJobView) error {
			if !v.State.Final() {
				return fmt.Errorf("state %s", v.State)
			}
			return nil
		})
		msg := mail.Wait(t, time.Minute, func(m mailtest.Message) bool { return m.Header.Get("X-Auditlog-Export") == job.ID })
		if end.State == exportjob.Done {
			if rows := parseCSV(t, readAll(t, base+"/api/audit-logs/exports/"+job.ID+"/file", tok)); len(rows) != 20000 {
				t.Fatalf("%d rows after the outage, want 20000", len(rows))
			}
		}
		return end, msg
	}
	cut := func() {
		proxy.Cut()
		time.Sleep(1500 * time.Millisecond) // shorter than the lease
		proxy.Restore()
	}

	end, msg := run("3", cut)
	if end.State != exportjob.Done || end.Attempts < 2 || end.RowsWritten != 20000 {
		t.Fatalf("with retries left: %+v (the outage must cost an attempt)", end)
	}
	if !strings.HasPrefix(msg.Header.Get("Subject"), "Your audit log export is ready") || msg.To[0] != owner.Email {
		t.Fatalf("e-mail after a retried job: %q to %v", msg.Header.Get("Subject"), msg.To)
	}
	end, msg = run("1", cut)
	if end.State != exportjob.Failed || !strings.Contains(end.Error, "unavailable") {
		t.Fatalf("with no retry left: %+v", end)
	}
	if msg.Header.Get("Subject") != "Your audit log export failed" || !strings.Contains(msg.Body, end.Error) || msg.To[0] != owner.Email {
		t.Fatalf("failure e-mail: %q\n%s", msg.Header.Get("Subject"), msg.Body)
	}
	// Hung for longer than the lease, then back. Had the worker waited
	// on the hung page, that page would have completed after the thaw and
	// the job would end done in its first attempt.
	end, _ = run("3", func() {
		proxy.Freeze()
		time.Sleep(lease + 2*time.Second)
		proxy.Restore()
	})
	if end.State != exportjob.Done || end.Attempts != 2 || end.RowsWritten != 20000 {
		t.Fatalf("after a hung store: %+v (the hung attempt must be given up and the job run again)", end)
	}
}

// readAll fetches a file URL as plain CSV.
func readAll(t *testing.T, u, tok string) []byte {
	t.Helper()
	res, body := request(t, "GET", u, tok, nil, "Accept-Encoding", "identity")
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, body)
	}
	return body
}

func filepathWalk(t *testing.T, root string, fn func(path string)) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fn(p)
		}
		return nil
	})
}

// TestExportJobSurvivesSIGKILL kills the server with SIGKILL while a job
// runs, then starts it again: the job's lease runs out, the new process
// takes it up, and it completes, e-mailed, with every row once.
func TestExportJobSurvivesSIGKILL(t *testing.T) {
	esURL := testenv.ElasticsearchURL(t)
	mail := mailtest.Start(t)
	prefix := testenv.Name("auditlog-xkill")
	tenant := "5f6a7b8c-9d0e-4f1a-8b2c-3d4e5f6a7b8c"
	const n = 40000
	loadES(t, esURL, prefix, tenantEvents(51, tenant, n))
	addr := freePort(t)
	base := "http://" + addr
	dir := t.TempDir()
	var env []string
	for k, v := range with(esServeEnv(t, prefix), mailVars(mail), map[string]string{
		"AUDITLOG_HTTP_ADDR": addr, "AUDITLOG_DATA_DIR": dir, "AUDITLOG_EXPORT_LEASE": "3s", "AUDITLOG_EXPORT_SCAN_PAGE": "50",
	}) {
		env = append(env, k+"="+v)
	}
	waitUp := func() { waitReady(t, base) }
	first := child(t, env, "serve")
	waitUp()
	owner := audit.Principal{UserID: "6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d", Email: "owner@kill.example", Role: audit.RoleAdmin, TenantID: tenant}
	tok := token(t, "s3cret", owner)
	job := startJob(t, "POST", base+"/api/audit-logs/exports?to="+octEndParam, tok)
	running := waitJob(t, base, tok, job.ID, time.Minute, func(v api.ExportJobView) error {
		if v.State != exportjob.Running || v.RowsWritten == 0 {
			return fmt.Errorf("state %s, %d rows", v.State, v.RowsWritten)
		}
		return nil
	})
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	t.Logf("killed at %d of %d rows", running.RowsWritten, running.RowsExpected)

	child(t, env, "serve")
	waitUp()
	done := waitJob(t, base, tok, job.ID, 2*time.Minute, isDone)
	if done.Attempts != 2 || done.RowsWritten != n {
		t.Fatalf("after the restart: %+v", done)
	}
	mail.Wait(t, time.Minute, func(m mailtest.Message) bool {
		return m.Header.Get("X-Auditlog-Export") == job.ID && strings.Contains(m.Header.Get("Subject"), "ready (40,000 rows)")
	})
	rows := parseCSV(t, readAll(t, base+"/api/audit-logs/exports/"+job.ID+"/file", tok))
	sameRows(t, rows, walk(t, base, tok, "to="+octEndParam))
	// The killed run's partial file is gone.
	filepathWalk(t, dir, func(p string) {
		if strings.HasSuffix(p, ".part") {
			t.Errorf("partial file left: %s", p)
		}
	})
}

// TestExportJobRequeuedOnShutdown closes the server (SIGTERM's path)
// while a job runs: the job goes back to the queue at once, without
// waiting for its lease (an hour here), and the next server completes it.
func TestExportJobRequeuedOnShutdown(t *testing.T) {
	esURL := testenv.ElasticsearchURL(t)
	prefix := testenv.Name("auditlog-xterm")
	tenant := "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	loadES(t, esURL, prefix, tenantEvents(61, tenant, 20000))
	vars := with(esServeEnv(t, prefix), map[string]string{"AUDITLOG_EXPORT_LEASE": "1h", "AUDITLOG_EXPORT_SCAN_PAGE": "50", "AUDITLOG_LOG_LEVEL": "info"})
	tok := token(t, "s3cret", audit.Principal{UserID: "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f", Email: "o@term.example", Role: audit.RoleAdmin, TenantID: tenant})

	first := startMain(t, "serve", vars)
	base := "http://" + first.Addr()
	job := startJob(t, "POST", base+"/api/audit-logs/exports?to="+octEndParam, tok)
	waitJob(t, base, tok, job.ID, time.Minute, func(v api.ExportJobView) error {
		if v.State != exportjob.Running {
			return fmt.Errorf("state %s", v.State)
		}
		return nil
	})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := startMain(t, "serve", vars)
	base = "http://" + second.Addr()
	done := waitJob(t, base, tok, job.ID, time.Minute, isDone)
	if done.RowsWritten != 20000 || done.Attempts != 1 {
		t.Fatalf("after a graceful restart: %+v (a requeued run is not an attempt)", done)
	}
}
