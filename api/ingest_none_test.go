package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/sqlite"
)

// TestIngestOfNothingValidIs400 (issue 57): a request none of whose
// events could be stored is a 400 problem, so that a producer reading
// only the status does not take it for a success. Its errors name each
// event's problems by place ("[2].tenantId") with the NDJSON line in the
// message, and details is the per-event answer. A request with one event
// stored, or whose events are all duplicates (an idempotent retry), is a
// 200 as before.
func TestIngestOfNothingValidIs400(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := ingestServer(t, s, s, prometheus.NewRegistry())
	g := gen.New(gen.Config{Seed: 57, Tenants: 1, WithIDs: true}, 2)
	good, _ := json.Marshal(g.Next())
	bad := []byte(`{"tenantId":"acme","action":"publish"}`)
	ndjson := func(lines ...[]byte) []byte { return append(bytes.Join(lines, []byte("\n")), '\n') }

	// Line 1 blank, lines 2 and 3 invalid: nothing stored.
	code, body := post(t, srv.URL, ingestToken, "application/x-ndjson", append([]byte("\n"), ndjson(bad, []byte("not json"))...))
	var p struct {
		Errors  []struct{ Field, Message string }
		Details api.IngestResponse
	}
	if err := json.Unmarshal(body, &p); err != nil || code != 400 {
		t.Fatalf("nothing valid: %d %s", code, body)
	}
	if p.Details.Rejected != 2 || len(p.Details.Items) != 2 || p.Details.Items[1].Line != 3 {
		t.Fatalf("details: %+v", p.Details)
	}
	named := map[string]bool{}
	for _, e := range p.Errors {
		named[e.Field] = true
		if !strings.HasPrefix(e.Message, "line 2: ") && !strings.HasPrefix(e.Message, "line 3: ") {
			t.Fatalf("%s: %q does not name its line", e.Field, e.Message)
		}
	}
	if !named["[0].tenantId"] || !named["[0].action"] || !named["[1]"] {
		t.Fatalf("errors name %v, want [0].tenantId, [0].action and [1]", named)
	}

	// One good event among the bad: a 200 that names the bad one.
	code, body = post(t, srv.URL, ingestToken, "application/x-ndjson", ndjson(bad, good))
	var res api.IngestResponse
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || res.Accepted != 1 || res.Rejected != 1 || res.Items[0].Line != 1 {
		t.Fatalf("one good event: %d %s", code, body)
	}
	// The same good event again: a duplicate, a success.
	code, body = post(t, srv.URL, ingestToken, "application/x-ndjson", ndjson(good))
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || res.Duplicates != 1 {
		t.Fatalf("a retried event: %d %s", code, body)
	}
}
