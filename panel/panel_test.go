package panel_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/panel"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// TestServesTheBuiltPanel: index.html for every panel URL (a filter, an
// open event), the hashed assets cached for good, the headers that keep
// it safe to embed only where allowed.
func TestServesTheBuiltPanel(t *testing.T) {
	h := panel.Handler(panel.Config{FrameAncestors: []string{"'self'", "https://app.example.com"}})
	for _, p := range []string{"/settings/audit/", "/settings/audit/?range=all&event=evt_audit_x", "/settings/audit/events/anything"} {
		rec := get(t, h, p)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `<div id="root">`) || rec.Header().Get("Cache-Control") != "no-cache" {
			t.Fatalf("%s: %d %q", p, rec.Code, rec.Header().Get("Cache-Control"))
		}
		csp := rec.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'self' https://app.example.com") || !strings.Contains(csp, "script-src 'self'") {
			t.Fatalf("CSP %q", csp)
		}
	}
	index := get(t, h, "/settings/audit/").Body.String()
	assets := regexp.MustCompile(`/settings/audit/(assets/[^"]+)`).FindAllStringSubmatch(index, -1)
	if len(assets) < 2 {
		t.Fatalf("index.html names %d assets", len(assets))
	}
	for _, a := range assets {
		rec := get(t, h, "/settings/audit/"+a[1])
		if rec.Code != 200 || !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
			t.Fatalf("%s: %d %q", a[1], rec.Code, rec.Header().Get("Cache-Control"))
		}
	}
	if rec := get(t, h, "/settings/audit/assets/missing.js"); rec.Code != 404 {
		t.Fatalf("a missing asset: %d", rec.Code)
	}
	if csp := get(t, panel.Handler(panel.Config{}), "/settings/audit/").Header().Get("Content-Security-Policy"); !strings.HasSuffix(csp, "frame-ancestors 'self'") {
		t.Fatalf("default CSP %q", csp)
	}
}

// TestInitialJavaScriptBudget: the JavaScript index.html loads weighs at
// most 250 KB gzipped.
func TestInitialJavaScriptBudget(t *testing.T) {
	raw, total, err := panel.InitialJavaScript()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("initial JavaScript: %d bytes, %d gzipped", raw, total)
	if raw == 0 || total == 0 || total > 250<<10 {
		t.Fatalf("initial JavaScript is %d bytes gzipped; the budget is 250 KB", total)
	}
}
