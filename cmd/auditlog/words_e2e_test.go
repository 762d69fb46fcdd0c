package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestOneWordModelThroughTheAPI (issue 56): on each store, through GET
// /api/audit-logs, every word case (accents, where words split,
// underscores and punctuation, phrases, other scripts, prefixes, request
// ids in any case) returns what the word model says, computed from the
// events; a term without a word, or a prefix of two words, is a 400 that
// names it.
func TestOneWordModelThroughTheAPI(t *testing.T) {
	forEachStore(t, func(t *testing.T, sv map[string]string) {
		vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc",
			"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_LOG_LEVEL": "warn"}
		for k, v := range sv {
			vars[k] = v
		}
		m := startMain(t, "serve", vars)
		c := client{t, "http://" + m.Addr()}
		tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
		events := storetest.WordEvents(demoTenant, 41, time.Now().Add(-2*time.Hour).Truncate(time.Second))
		payload, _ := json.Marshal(events)
		if code, body := c.do("POST", "/api/audit-events", "svc", payload); code != 200 || !strings.Contains(string(body), `"rejected":0`) {
			t.Fatalf("ingest: %d %s", code, body)
		}
		ids := func(q string) ([]string, int, string) {
			path := "/api/audit-logs?pageSize=100"
			if q != "" {
				path += "&q=" + url.QueryEscape(q)
			}
			code, body := c.do("GET", path, tok, nil)
			var lr api.ListResponse
			if code != 200 || json.Unmarshal(body, &lr) != nil {
				return nil, code, string(body)
			}
			var out []string
			for _, e := range lr.Data {
				out = append(out, e.ID)
			}
			return out, code, ""
		}
		testenv.Eventually(t, 30*time.Second, func() error {
			if got, _, _ := ids(""); len(got) < len(events) {
				return fmt.Errorf("%d of %d events listed", len(got), len(events))
			}
			return nil
		})
		for _, q := range storetest.WordCases {
			want := storetest.Expected(events, func(e *audit.Event) bool { return storetest.Matches(e, q) }, audit.DefaultSort)
			if got, code, body := ids(q); code != 200 || !slices.Equal(got, want) {
				t.Errorf("q=%s: %d %v %s, want %v", q, code, got, body, want)
			}
		}
		for _, q := range []string{"-", "--", `""`, "&&", "_&", "CS-48*", `"welcome scr"*`} {
			_, code, body := ids(q)
			var problem struct{ Errors []audit.FieldError }
			if code != 400 || json.Unmarshal([]byte(body), &problem) != nil || len(problem.Errors) != 1 ||
				problem.Errors[0].Field != "q" || !strings.Contains(problem.Errors[0].Message, fmt.Sprintf("%q", q)) {
				t.Errorf("q=%s: %d %s, want a 400 naming the term", q, code, body)
			}
		}
	})
}
