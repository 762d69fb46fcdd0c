package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestOverloadIsShedAtOnce (issue 45): the real server with a bound of 4
// requests in flight (3 of one tenant) is sent 120 requests at once, the
// panel's heavier ones (free text, the 7-day histogram, a filtered page)
// of two tenants. Each answer is a 200 with its page, or a refusal with
// Retry-After and a problem document: 503 overloaded past the global
// bound, 429 past a tenant's. Nothing else, and some of each are refused
// (the metric counts them); once the burst is over the server answers
// again.
func TestOverloadIsShedAtOnce(t *testing.T) {
	m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_SEED": "3000", "AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_MAX_IN_FLIGHT": "4", "AUDITLOG_MAX_IN_FLIGHT_PER_TENANT": "3",
		"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_LOG_LEVEL": "warn"})
	base := "http://" + m.Addr()
	other := "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e"
	tokens := map[string]string{}
	for _, tenant := range []string{demoTenant, other} {
		tokens[tenant] = token(t, "s3cret", audit.Principal{UserID: tenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: tenant})
	}
	paths := []string{"/api/audit-logs?q=queue", "/api/audit-logs/stats?groupBy=action&interval=1h&from=" + time.Now().Add(-7*24*time.Hour).UTC().Format(time.RFC3339), "/api/audit-logs?action=delete&resourceType=queue", "/api/audit-logs?sort=actor.email"}
	type answer struct {
		status              int
		retryAfter, problem string
	}
	answers := make(chan answer, 120)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 120 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tenant := []string{demoTenant, other}[i%2]
			req, _ := http.NewRequest("GET", base+paths[i%len(paths)], nil)
			req.Header.Set("Authorization", "Bearer "+tokens[tenant])
			<-start
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				answers <- answer{status: -1, problem: err.Error()}
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			a := answer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
			if resp.StatusCode != http.StatusOK {
				var p api.Problem
				_ = json.Unmarshal(body, &p)
				a.problem = p.Code + " " + resp.Header.Get("Content-Type")
			}
			answers <- a
		}()
	}
	close(start)
	wg.Wait()
	close(answers)
	count := map[int]int{}
	for a := range answers {
		count[a.status]++
		switch {
		case a.status == http.StatusOK:
		case a.status == http.StatusServiceUnavailable && a.retryAfter == "1" && a.problem == "overloaded "+api.ProblemContentType:
		case a.status == http.StatusTooManyRequests && a.retryAfter == "1" && a.problem == audit.ERATELIMIT+" "+api.ProblemContentType:
		default:
			t.Fatalf("an answer that is neither a page nor a refusal: %+v", a)
		}
	}
	if count[http.StatusOK] == 0 || count[http.StatusServiceUnavailable] == 0 {
		t.Fatalf("answers by status: %v; want pages and 503s", count)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := fmt.Sprintf(`auditlog_http_shed_total{bound="global"} %d`, count[http.StatusServiceUnavailable])
	if !strings.Contains(string(metrics), want) {
		t.Fatalf("metrics lack %s:\n%s", want, grepLines(string(metrics), "auditlog_http_shed"))
	}
	c := client{t, base}
	if code, body := c.do("GET", "/api/audit-logs?pageSize=5", tokens[demoTenant], nil); code != http.StatusOK {
		t.Fatalf("after the burst: %d %s", code, body)
	}
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
