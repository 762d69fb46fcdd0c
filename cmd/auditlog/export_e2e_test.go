package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/mailtest"
	"github.com/auditlog/auditlog/internal/testenv"
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
	s, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{})
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

// request sends one request and returns the answer with its body read.
func request(t *testing.T, method, u, tok string, body []byte, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, u, err)
	}
	return res, b
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

func isDone(v api.ExportJobView) error {
	if v.State == audit.ExportFailed {
		return fmt.Errorf("the job failed: %s", v.Error)
	}
	if v.State != audit.ExportDone {
		return fmt.Errorf("state %s, %d/%d rows", v.State, v.RowsWritten, v.RowsExpected)
	}
	return nil
}

func esServeEnv(t *testing.T, prefix string) map[string]string {
	return map[string]string{
		"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": testenv.ElasticsearchURL(t), "AUDITLOG_ES_INDEX_PREFIX": prefix,
		"AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_EXPORT_POLL": "100ms", "AUDITLOG_LOG_LEVEL": "warn",
	}
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

var downloadLink = regexp.MustCompile(`Download: (\S+)`)

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
	vars := esServeEnv(t, prefix)
	for k, v := range map[string]string{
		"AUDITLOG_EXPORT_STORE": "s3", "AUDITLOG_S3_ENDPOINT": s3env.Endpoint, "AUDITLOG_S3_BUCKET": testenv.Name("exports"),
		"AUDITLOG_S3_ACCESS_KEY": s3env.AccessKey, "AUDITLOG_S3_SECRET_KEY": s3env.SecretKey, "AUDITLOG_S3_PATH_STYLE": "true",
		"AUDITLOG_S3_CREATE_BUCKET": "true", "AUDITLOG_S3_PREFIX": "auditlog/",
		"AUDITLOG_SMTP_HOST": mail.Host, "AUDITLOG_SMTP_PORT": fmt.Sprint(mail.Port), "AUDITLOG_SMTP_USERNAME": mail.User,
		"AUDITLOG_SMTP_PASSWORD": mail.Password, "AUDITLOG_SMTP_STARTTLS": "required", "AUDITLOG_SMTP_CA_FILE": mail.CAFile,
		"AUDITLOG_SMTP_FROM": "Audit log <auditlog@platform.example>",
	} {
		vars[k] = v
	}
	m := startMain(t, "serve", vars)
	base := "http://" + m.Addr()
	owner := audit.Principal{UserID: "7d6c5b4a-3928-4176-9554-433221100fed", Email: "sec.lead@acme.example", Role: audit.RoleAdmin, TenantID: tenant}
	tok := token(t, "s3cret", owner)

	res, body := request(t, "POST", base+"/api/audit-logs/exports", tok, []byte(`{"to":"`+octEndParam+`","sort":"timestamp","order":"asc"}`))
	var job api.ExportJobView
	if res.StatusCode != 202 || json.Unmarshal(body, &job) != nil || job.State != audit.ExportQueued || job.RowsExpected != audit.SyncExportLimit+1 ||
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
