package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

const tenantX = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"

func TestAuthCases(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	now := time.Now()
	expired, _ := api.MintToken(secret, audit.Principal{Role: audit.RoleAdmin, TenantID: tenantX}, -time.Minute, now.Add(-time.Hour))
	badSig, _ := api.MintToken([]byte("not-the-secret"), audit.Principal{Role: audit.RoleAdmin, TenantID: tenantX}, time.Hour, now)
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, api.Claims{Role: audit.RoleAdmin, Tenant: tenantX,
		RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	unknownRole, _ := api.MintToken(secret, audit.Principal{Role: "agent", TenantID: tenantX}, time.Hour, now)
	ingest, _ := api.MintToken(secret, audit.Principal{Role: audit.RoleIngest}, time.Hour, now)
	for name, tc := range map[string]struct {
		tok    string
		status int
	}{
		"missing":               {"", 401},
		"expired":               {expired, 401},
		"alg none":              {none, 401},
		"bad signature":         {badSig, 401},
		"unknown role":          {unknownRole, 403},
		"service role":          {ingest, 403},
		"superadmin, no reason": {token(t, tenantX, audit.RoleSuperadmin, ""), 403},
	} {
		r := h.get(t, "/api/audit-logs", tc.tok)
		p := r.problem(t)
		if r.status != tc.status || p.Status != tc.status {
			t.Errorf("%s: %d %s, want %d", name, r.status, r.body, tc.status)
		}
		if tc.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without WWW-Authenticate", name)
		}
	}
	if r := h.get(t, "/api/audit-logs", token(t, tenantX, audit.RoleAdmin, "")); r.status != 200 {
		t.Fatalf("admin: %d %s", r.status, r.body)
	}
}

// TestSuperadminReadsAreRecorded: each read of a superadmin, with the
// reason from the token or the header, lands in the tenant's own log as a
// cross-tenant access event.
func TestSuperadminReadsAreRecorded(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	admin := token(t, tenantX, audit.RoleAdmin, "")
	if r := h.get(t, "/api/audit-logs", token(t, tenantX, audit.RoleSuperadmin, "Ticket CS-9001: IVR won't publish")); r.status != 200 {
		t.Fatalf("superadmin with a reason claim: %d %s", r.status, r.body)
	}
	if r := h.get(t, "/api/audit-logs/stats?groupBy=action", token(t, tenantX, audit.RoleSuperadmin, ""), api.ReasonHeader, "Incident INC-42"); r.status != 200 {
		t.Fatalf("superadmin with a reason header: %d %s", r.status, r.body)
	}
	h.refresh(t)
	r := h.get(t, "/api/audit-logs?crossTenant=true&order=asc", admin)
	var lr api.ListResponse
	r.json(t, &lr)
	if len(lr.Data) != 2 {
		t.Fatalf("%d access events recorded, want 2: %s", len(lr.Data), r.body)
	}
	for i, reason := range []string{"Ticket CS-9001: IVR won't publish", "Incident INC-42"} {
		e := lr.Data[i]
		if e.Action != audit.ActionAccess || e.Resource.Type != audit.ResourceAuditLog || !e.CrossTenant || e.Reason != reason ||
			e.Actor.Role != audit.RoleSuperadmin || e.Category != audit.CategoryCrossTenant || e.TenantID != tenantX {
			t.Fatalf("access event %d: %+v", i, e)
		}
	}
	// The admin's own reads are not recorded as operator accesses.
	if lr.Total.Value != 2 {
		t.Fatalf("total %d", lr.Total.Value)
	}
}

func TestRateLimitPerTenant(t *testing.T) {
	h := newHarness(t, harnessOpts{rate: 1, burst: 3})
	a, b := token(t, tenantX, audit.RoleAdmin, ""), token(t, "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b", audit.RoleAdmin, "")
	var limited response
	for i := 0; i < 10; i++ {
		if r := h.get(t, "/api/audit-logs", a); r.status == http.StatusTooManyRequests {
			limited = r
			break
		}
	}
	if limited.status != http.StatusTooManyRequests || limited.header.Get("Retry-After") == "" || limited.problem(t).Code != audit.ERATELIMIT {
		t.Fatalf("no 429 with Retry-After after a burst: %d %v", limited.status, limited.header)
	}
	if r := h.get(t, "/api/audit-logs", b); r.status != 200 {
		t.Fatalf("another tenant is limited too: %d", r.status)
	}
}

// TestElasticsearchDownIs503: an unreachable cluster gives a quick 503
// problem without internals, never a hang or a 500.
func TestElasticsearchDownIs503(t *testing.T) {
	testenv.ElasticsearchURL(t) // the real one exists; this one does not answer
	h := newHarness(t, harnessOpts{esURL: "http://127.0.0.1:1"})
	start := time.Now()
	r := h.get(t, "/api/audit-logs", token(t, tenantX, audit.RoleAdmin, ""))
	p := r.problem(t)
	if r.status != http.StatusServiceUnavailable || p.Code != audit.EUNAVAILABLE || strings.Contains(string(r.body), "127.0.0.1") || strings.Contains(string(r.body), "dial") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
}

// TestAnOperatorsQuestionIsRecordedOnce: the list, its histogram and the
// next page of one question, asked within a minute, are one record of the
// operator's access; another question, or another reason, is another.
func TestAnOperatorsQuestionIsRecordedOnce(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true, Start: time.Now().Add(-10 * 24 * time.Hour), End: time.Now().Add(-time.Hour)}, 120)
	var events []audit.Event
	for range 120 {
		e := g.Next()
		e.TenantID = tenantX
		events = append(events, e)
	}
	h.load(t, events)
	op := token(t, tenantX, audit.RoleSuperadmin, "Ticket CS-9002: audit review")
	// A question's record is per minute: the four requests must not
	// straddle one (a loaded run saw two records when they did).
	if s := time.Now().Second(); s > 40 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
	from := time.Now().Add(-30 * 24 * time.Hour).UTC()
	first := h.get(t, "/api/audit-logs?pageSize=10&from="+from.Format(time.RFC3339Nano), op)
	var lr api.ListResponse
	first.json(t, &lr)
	if first.status != 200 || lr.NextCursor == nil {
		t.Fatalf("first page: %d %s", first.status, first.body)
	}
	// The same question: its histogram (the range computed a moment
	// later, open or closed at now, as the panel asks it), its next page,
	// another sort.
	for _, path := range []string{
		"/api/audit-logs/stats?interval=1d&from=" + from.Add(1500*time.Millisecond).Format(time.RFC3339Nano),
		"/api/audit-logs/stats?interval=1d&from=" + from.Add(1500*time.Millisecond).Format(time.RFC3339Nano) + "&to=" + time.Now().UTC().Format(time.RFC3339Nano),
		"/api/audit-logs?pageSize=10&from=" + from.Format(time.RFC3339Nano) + "&cursor=" + url.QueryEscape(*lr.NextCursor),
		"/api/audit-logs?sort=action&from=" + from.Format(time.RFC3339Nano),
	} {
		if r := h.get(t, path, op); r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
	}
	records := func() int {
		h.refresh(t)
		var out api.ListResponse
		h.get(t, "/api/audit-logs?crossTenant=true&resourceType=audit_log&pageSize=100", token(t, tenantX, audit.RoleAdmin, "")).json(t, &out)
		return len(out.Data)
	}
	if n := records(); n != 1 {
		t.Fatalf("one question asked five ways wrote %d records, want 1", n)
	}
	h.get(t, "/api/audit-logs?action=delete&from="+from.Format(time.RFC3339Nano), op)
	h.get(t, "/api/audit-logs?action=delete&from="+from.Format(time.RFC3339Nano), token(t, tenantX, audit.RoleSuperadmin, "Incident INC-43"))
	if n := records(); n != 3 {
		t.Fatalf("another question and another reason: %d records, want 3", n)
	}
}
