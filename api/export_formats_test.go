package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/sqlite"
)

type exportBackend interface {
	api.Reader
	audit.EventWriter
	audit.EventScanner
	exportjob.Store
}

func TestExportFormatsAndNamesOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testExportFormatsAndNames(t, s, func() {})
}

func TestExportFormatsAndNamesOnElasticsearch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	testExportFormatsAndNames(t, h.store, func() { h.refresh(t) })
}

// testExportFormatsAndNames: an export in JSON lines holds, line by line,
// the events the list answers, for a direct download and for a job's
// file; every download is named after its window, filters and format,
// and its name and content type agree with its bytes.
func testExportFormatsAndNames(t *testing.T, b exportBackend, visible func()) {
	const tenant = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, FirstTenantID: tenant, WithIDs: true,
		Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, 120)
	events := make([]audit.Event, 120)
	for i := range events {
		events[i] = g.Next()
	}
	if _, err := b.WriteEvents(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	visible()
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	svc := export.New(export.Config{Poll: 50 * time.Millisecond, TempDir: t.TempDir()}, export.Deps{Scanner: b, Jobs: b, Files: localfs.Dir{Root: t.TempDir()}})
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:   api.ReadDeps{Reader: b, Writer: b, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Export: api.ExportDeps{Service: svc},
	}).Handler())
	t.Cleanup(srv.Close)
	h := &harness{srv: srv}
	tok := token(t, tenant, audit.RoleAdmin, "")
	const query = "from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z&action=update&action=delete&sort=timestamp&order=asc"

	var list api.ListResponse
	h.get(t, "/api/audit-logs?pageSize=200&"+query, tok).json(t, &list)
	if len(list.Data) < 10 {
		t.Fatalf("only %d events to export", len(list.Data))
	}
	r := h.do(t, "POST", "/api/audit-logs/exports?format=jsonl&"+query, tok, nil, "Accept-Encoding", "identity")
	wantName := "audit-log_2026-10-01T0000Z_2026-11-01T0000Z_action-delete_action-update_"
	checkDownload(t, r, "application/x-ndjson; charset=utf-8", wantName, ".jsonl")
	if got := jsonLines(t, r.body); !slices.EqualFunc(got, list.Data, sameEvent) {
		t.Fatalf("the JSON lines are not the list's events: %d lines for %d events", len(got), len(list.Data))
	}
	r = h.do(t, "POST", "/api/audit-logs/exports?"+query, tok, nil, "Accept-Encoding", "identity")
	checkDownload(t, r, "text/csv; charset=utf-8", wantName, ".csv")
	if r := h.do(t, "POST", "/api/audit-logs/exports?format=xml", tok, nil); r.status != 400 || !hasField(r.problem(t), "format") {
		t.Fatalf("an unknown format: %d %s", r.status, r.body)
	}

	// A job in JSON lines: its file is the same lines, under its name.
	r = h.do(t, "POST", "/api/audit-logs/exports?async=true&format=jsonl&"+query, tok, nil)
	var j api.ExportJobView
	if r.json(t, &j); r.status != 202 || j.Format != "jsonl" || j.FileName != "audit-log_2026-10-01T0000Z_2026-11-01T0000Z_action-delete_action-update_"+j.ID[:8]+".jsonl" {
		t.Fatalf("job: %d %s", r.status, r.body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	testenv.Eventually(t, time.Minute, func() error {
		h.get(t, j.StatusURL, tok).json(t, &j)
		if j.State != exportjob.Done {
			return fmt.Errorf("state %s", j.State)
		}
		return nil
	})
	r = h.get(t, j.FileURL, tok, "Accept-Encoding", "identity")
	checkDownload(t, r, "application/x-ndjson; charset=utf-8", wantName+j.ID[:8], ".jsonl")
	if got := jsonLines(t, r.body); !slices.EqualFunc(got, list.Data, sameEvent) {
		t.Fatalf("the job's JSON lines are not the list's events: %d lines", len(got))
	}
}

// checkDownload: a 200 attachment of content type ct whose file name
// starts with prefix and ends with ext, and whose bytes are of that
// format (not compressed: the client asked for identity).
func checkDownload(t *testing.T, r response, ct, prefix, ext string) {
	t.Helper()
	_, params, err := mime.ParseMediaType(r.header.Get("Content-Disposition"))
	name := params["filename"]
	if r.status != 200 || err != nil || r.header.Get("Content-Type") != ct || r.header.Get("Content-Encoding") != "" ||
		len(name) < len(prefix) || name[:len(prefix)] != prefix || filepath.Ext(name) != ext {
		t.Fatalf("download: %d %v, name %q, want %s…%s", r.status, r.header, name, prefix, ext)
	}
	first := bytes.SplitN(r.body, []byte("\n"), 2)[0]
	if isJSON := json.Valid(first); isJSON != (ext == ".jsonl") || bytes.HasPrefix(r.body, []byte{0x1f, 0x8b}) {
		t.Fatalf("%s holds %.80q", name, r.body)
	}
}

func jsonLines(t *testing.T, body []byte) []audit.Event {
	t.Helper()
	var out []audit.Event
	for _, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		var e audit.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func sameEvent(a, b audit.Event) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
