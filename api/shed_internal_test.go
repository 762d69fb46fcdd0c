package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// TestShedderRefusesAtOnceOverItsBounds: with two requests in flight
// (the global bound), a third is refused at once with 503 and
// Retry-After; with one request of a tenant in flight (the tenant's
// bound), a second of that tenant is refused with 429 while another
// tenant's passes; once the requests in flight end, requests pass again.
// Each refusal is counted by its bound.
func TestShedderRefusesAtOnceOverItsBounds(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	reg := prometheus.NewRegistry()
	shed := NewShedder(ShedConfig{Global: 2, PerTenant: 1}, reg)
	srv := &Server{deps: Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	hold, entered := make(chan struct{}), make(chan struct{}, 8)
	e := gin.New()
	e.GET("/", shed.middleware(srv, func(c *gin.Context) string { return c.Query("tenant") }), func(c *gin.Context) {
		if c.Query("hold") != "" {
			entered <- struct{}{}
			<-hold
		}
		c.String(http.StatusOK, "ok")
	})
	get := func(query string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest("GET", "/?"+query, nil))
		return w
	}
	var wg sync.WaitGroup
	for _, tenant := range []string{"a", "b"} {
		wg.Add(1)
		go func() { defer wg.Done(); get("hold=1&tenant=" + tenant) }()
		<-entered
	}
	w := get("tenant=c")
	var p Problem
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || json.Unmarshal(w.Body.Bytes(), &p) != nil || p.Code != codeOverloaded {
		t.Fatalf("past the global bound: %d, Retry-After %q, %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	close(hold)
	wg.Wait()

	hold = make(chan struct{})
	wg.Add(1)
	go func() { defer wg.Done(); get("hold=1&tenant=a") }()
	<-entered
	if w := get("tenant=a"); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("past the tenant's bound: %d, Retry-After %q, %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := get("tenant=b"); w.Code != http.StatusOK {
		t.Fatalf("another tenant, while one is at its bound: %d %s", w.Code, w.Body)
	}
	close(hold)
	wg.Wait()
	for _, tenant := range []string{"a", "a", "b", "c"} {
		if w := get("tenant=" + tenant); w.Code != http.StatusOK {
			t.Fatalf("after the requests in flight ended: %d %s", w.Code, w.Body)
		}
	}
	if g, tn := metric(t, reg, "auditlog_http_shed_total", "global"), metric(t, reg, "auditlog_http_shed_total", "tenant"); g != 1 || tn != 1 {
		t.Fatalf("shed counted: global %v, tenant %v; want 1 and 1", g, tn)
	}
	if n := metric(t, reg, "auditlog_http_in_flight_requests", ""); n != 0 || len(shed.tenants) != 0 {
		t.Fatalf("in flight after every request ended: %v, tenants %v", n, shed.tenants)
	}
}

// metric reads a counter or gauge of reg, by its one label's value ("":
// none).
func metric(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() != name || (label != "" && (len(m.GetLabel()) == 0 || m.GetLabel()[0].GetValue() != label)) {
				continue
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s{%s}", name, label)
	return 0
}
