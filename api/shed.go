package api

import (
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/audit"
)

// codeOverloaded is the transport's code for a request shed because the
// server has as many requests in flight as it takes: a 503 that is the
// server protecting itself, not a failure, so it is counted, not logged.
const codeOverloaded = "overloaded"

// Shedder bounds the requests in flight: at most Global at once, and of
// one tenant at most PerTenant, so that one tenant's burst cannot take
// the slots of every other. A request past a bound is refused at once,
// never queued: 503 past the global one, 429 past the tenant's, both
// with Retry-After. A client told at once retries or backs off; one made
// to wait holds a connection and memory while the server falls further
// behind (issue 45: at 100 requests/s offered to a server answering 18,
// every answer took seconds and memory grew past 1 GB). What a request
// in flight holds is bounded by its own limits (page size, export rows),
// so the bound bounds memory too.
type Shedder struct {
	global, perTenant int
	mu                sync.Mutex
	inFlight          int
	tenants           map[string]int
	gauge             prometheus.Gauge
	shed              *prometheus.CounterVec
}

// ShedConfig is the bounds; 0 turns one off.
type ShedConfig struct {
	Global, PerTenant int
}

// NewShedder returns the shedder of cfg, its metrics registered on reg;
// nil when both bounds are off.
func NewShedder(cfg ShedConfig, reg prometheus.Registerer) *Shedder {
	if cfg.Global <= 0 && cfg.PerTenant <= 0 {
		return nil
	}
	s := &Shedder{global: cfg.Global, perTenant: cfg.PerTenant, tenants: map[string]int{},
		gauge: prometheus.NewGauge(prometheus.GaugeOpts{Name: "auditlog_http_in_flight_requests",
			Help: "Requests in flight under the in-flight bound (AUDITLOG_MAX_IN_FLIGHT)."}),
		shed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_http_shed_total",
			Help: "Requests refused at once because a bound of requests in flight was reached (bound: global or tenant)."}, []string{"bound"})}
	reg.MustRegister(s.gauge, s.shed)
	return s
}

// acquire takes a slot for a request of tenant; it returns the bound that
// refused it ("" when taken).
func (s *Shedder) acquire(tenant string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.global > 0 && s.inFlight >= s.global:
		return "global"
	case s.perTenant > 0 && s.tenants[tenant] >= s.perTenant:
		return "tenant"
	}
	s.inFlight++
	s.tenants[tenant]++
	s.gauge.Set(float64(s.inFlight))
	return ""
}

func (s *Shedder) release(tenant string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	if s.tenants[tenant]--; s.tenants[tenant] <= 0 {
		delete(s.tenants, tenant) // the map holds the tenants in flight only
	}
	s.gauge.Set(float64(s.inFlight))
}

// middleware bounds the requests it sees by the tenant key returns (the
// authenticated tenant, or a fixed key for the ingest endpoint).
func (s *Shedder) middleware(srv *Server, key func(*gin.Context) string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if s == nil {
			c.Next()
			return
		}
		tenant := key(c)
		switch s.acquire(tenant) {
		case "global":
			s.shed.WithLabelValues("global").Inc()
			c.Header("Retry-After", strconv.Itoa(1))
			writeError(c, srv.deps.Logger, audit.Errorf(codeOverloaded, "the server has %d requests in flight, as many as it takes; retry in a second", s.global))
			return
		case "tenant":
			s.shed.WithLabelValues("tenant").Inc()
			c.Header("Retry-After", strconv.Itoa(1))
			writeError(c, srv.deps.Logger, audit.Errorf(audit.ERATELIMIT, "this tenant has %d requests in flight, as many as one tenant may; retry in a second", s.perTenant))
			return
		}
		defer s.release(tenant)
		c.Next()
	}
}
