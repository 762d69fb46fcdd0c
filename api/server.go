// Package api is the HTTP transport on Gin: the audit-log endpoints, auth,
// problem+json errors, health, metrics and the OpenAPI document. It depends
// on the audit domain and never on a backend.
package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/auditlog/auditlog/audit"
)

// ReadinessCheck is one dependency reported by /readyz.
type ReadinessCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Config is the HTTP section of the configuration.
type Config struct {
	// RequestTimeout bounds the handling of one request (not the streaming
	// of a large download, which is bounded by its own write deadline).
	RequestTimeout time.Duration
	// TrustedProxies are the IPs and CIDRs whose X-Forwarded-For and
	// X-Real-IP headers name the client. Empty: no proxy is trusted and the
	// client is the peer address, so a client cannot choose the actor.ip
	// of the records the service writes about it. Entries must be valid
	// (the configuration checks them); an invalid list trusts none.
	TrustedProxies []string
	// Shed bounds the requests in flight (Shedder); zero bounds: none.
	Shed ShedConfig
}

// Deps are what the server needs from the rest of the program.
type Deps struct {
	Logger   *slog.Logger
	Registry *prometheus.Registry
	Ready    []ReadinessCheck
	// Now is the clock; tests may fix it.
	Now func() time.Time
	// Read enables the read endpoints when its Reader is set.
	Read ReadDeps
	// Ingest enables POST /api/audit-events when its Writer is set.
	Ingest IngestDeps
	// Export enables the export endpoints when its Service is set (with
	// Read).
	Export ExportDeps
	// Restore enables the restore endpoints when its Store is set (with
	// Read).
	Restore RestoreDeps
	// Periodic enables the periodic export endpoints when its Store is
	// set (with Read).
	Periodic PeriodicDeps
	// Log enables the verifiable log's endpoints when its Store is set
	// (with Read).
	Log LogDeps
	// Stream enables the streams' endpoints when its Store is set (with
	// Read and Log).
	Stream StreamDeps
	// Hold enables the legal holds' endpoints when its Service is set
	// (with Read).
	Hold HoldDeps
}

// Server is the HTTP API.
type Server struct {
	cfg      Config
	deps     Deps
	read     ReadDeps
	ingest   IngestDeps
	export   ExportDeps
	restores RestoreDeps
	periodic PeriodicDeps
	logs     LogDeps
	streams  StreamDeps
	holds    HoldDeps
	engine   *gin.Engine
	// bound and boundIngest take a slot of the in-flight bound for a
	// tenant's request and for an ingest request.
	bound, boundIngest gin.HandlerFunc

	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	conflicts prometheus.Counter
}

// NewServer builds the router. It registers its metrics on deps.Registry.
func NewServer(cfg Config, deps Deps) *Server {
	gin.SetMode(gin.ReleaseMode)
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if deps.Registry == nil {
		deps.Registry = prometheus.NewRegistry()
	}
	s := &Server{cfg: cfg, deps: deps, read: deps.Read, ingest: deps.Ingest, export: deps.Export, restores: deps.Restore, periodic: deps.Periodic, logs: deps.Log, streams: deps.Stream, holds: deps.Hold, engine: gin.New()}
	// gin trusts every proxy unless told otherwise.
	if err := s.engine.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		deps.Logger.Error("invalid trusted proxies; trusting none", "err", err)
		_ = s.engine.SetTrustedProxies(nil)
	}
	s.registerMetrics()
	shed := NewShedder(cfg.Shed, deps.Registry)
	s.bound = shed.middleware(s, func(c *gin.Context) string { return principalOf(c).TenantID })
	s.boundIngest = shed.middleware(s, func(*gin.Context) string { return "ingest" })
	s.routes()
	return s
}

// registerMetrics creates and registers the server's own metrics.
func (s *Server) registerMetrics() {
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "auditlog_http_requests_total", Help: "HTTP requests by route and status.",
	}, []string{"method", "route", "status"})
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "auditlog_http_request_duration_seconds", Help: "HTTP request latency by route.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"method", "route"})
	s.conflicts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "auditlog_ingest_events_conflict_total",
		Help: "Ingested events whose id was already stored in the tenant with different content (not stored; first wins).",
	})
	s.deps.Registry.MustRegister(s.requests, s.latency, s.conflicts)
}

// routes mounts the middleware and every endpoint whose dependencies are
// set.
func (s *Server) routes() {
	s.engine.Use(s.recoverer, s.requestIDs, s.observe, s.checkParams)
	// A known path with another method is a 405 naming the allowed ones,
	// not a 404 (gin sets the Allow header).
	s.engine.HandleMethodNotAllowed = true
	s.engine.NoMethod(func(c *gin.Context) {
		writeError(c, s.deps.Logger, audit.Errorf(codeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", c.Request.Method, c.Request.URL.Path, c.Writer.Header().Get("Allow")))
	})
	s.engine.NoRoute(func(c *gin.Context) {
		writeError(c, s.deps.Logger, audit.Errorf(audit.ENOTFOUND, "no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	s.engine.GET("/healthz", s.healthz)
	s.engine.GET("/readyz", s.readyz)
	s.engine.GET("/metrics", gin.WrapH(promhttp.HandlerFor(s.deps.Registry, promhttp.HandlerOpts{Registry: s.deps.Registry})))
	s.engine.GET("/api/openapi.json", s.openapi)
	if s.read.Reader != nil {
		s.readRoutes()
	}
	if s.read.Reader != nil && s.read.Saved != nil {
		s.savedRoutes()
	}
	if s.read.Reader != nil && s.logs.Store != nil {
		s.logRoutes()
	}
	if s.read.Reader != nil && s.logs.Store != nil && s.streams.Store != nil {
		s.streamRoutes()
	}
	if s.read.Reader != nil && s.holds.Service != nil {
		s.holdRoutes()
	}
	if s.ingest.Writer != nil {
		s.engine.POST("/api/audit-events", s.timeout, s.ingestAuth, s.boundIngest, s.ingestEvents)
	}
}

// readRoutes mounts the tenant's read, export, periodic export and
// restore endpoints. Streaming answers (exports, files) are bounded by
// their own deadlines, not by the request timeout.
func (s *Server) readRoutes() {
	g := s.engine.Group("/api/audit-logs", s.authenticate, s.bound, s.limit)
	g.GET("", s.timeout, s.listEvents)
	g.GET("/stats", s.timeout, s.stats)
	if s.export.Service != nil {
		g.POST("/exports", s.createExport)
		g.GET("/export.csv", s.createExport)
		g.GET("/exports", s.timeout, s.listExports)
		g.GET("/exports/:id", s.timeout, s.getExport)
		g.DELETE("/exports/:id", s.timeout, s.cancelExport)
		g.GET("/exports/:id/file", s.exportFile)
	}
	if s.periodic.Store != nil {
		g.GET("/periodic-exports", s.timeout, s.listPeriodicExports)
		g.GET("/periodic-exports/file", s.periodicFile)
		g.GET("/periodic-exports/settings", s.timeout, s.getPeriodicSettings)
		g.PUT("/periodic-exports/settings", s.timeout, s.putPeriodicSettings)
		s.engine.GET("/api/export-keys", s.exportKeys)
	}
	g.GET("/:id", s.timeout, s.getEvent)
	r := s.engine.Group("/api/resources/:type/:id", s.authenticate, s.bound, s.limit)
	r.GET("/history", s.timeout, s.history)
	r.GET("/compare", s.timeout, s.compare)
	if s.restores.Store != nil {
		// Any tenant role reaches the restore, so that a refused attempt
		// is recorded too.
		s.engine.POST("/api/audit-logs/:id/restore", s.authenticateRestore, s.bound, s.limit, s.timeout, s.restore)
		s.engine.GET("/api/restores/:id", s.authenticate, s.bound, s.limit, s.timeout, s.getRestore)
	}
}

// Handler returns the root handler.
func (s *Server) Handler() http.Handler { return s.engine }

// Engine exposes the router so that other transports (the ingest
// endpoint, the panel) can add routes.
func (s *Server) Engine() *gin.Engine { return s.engine }

const requestIDKey = "requestId"

func requestID(c *gin.Context) string { return c.GetString(requestIDKey) }

// requestIDs takes X-Request-Id from the client when it is sane (1 to
// audit.MaxRequestIDBytes of letters, digits and ._:-), or makes one, and
// echoes it on the answer. The id goes into logs and into the service's
// own audit records, so nothing else is taken from the client.
func (s *Server) requestIDs(c *gin.Context) {
	rid := c.GetHeader("X-Request-Id")
	if !saneRequestID(rid) {
		rid = uuid.NewString()
	}
	c.Set(requestIDKey, rid)
	c.Header("X-Request-Id", rid)
	c.Next()
}

func saneRequestID(s string) bool {
	if s == "" || len(s) > audit.MaxRequestIDBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	status := c.Writer.Status()
	s.requests.WithLabelValues(c.Request.Method, route, http.StatusText(status)).Inc()
	s.latency.WithLabelValues(c.Request.Method, route).Observe(time.Since(start).Seconds())
	if route != "/healthz" && route != "/readyz" && route != "/metrics" {
		s.deps.Logger.InfoContext(c.Request.Context(), "request", "requestId", requestID(c), "method", c.Request.Method,
			"route", route, "status", status, "durationMs", time.Since(start).Milliseconds())
	}
}

func (s *Server) recoverer(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			writeError(c, s.deps.Logger, audit.Errorf(audit.EINTERNAL, "panic: %v", r))
		}
	}()
	c.Next()
}

// healthz answers that the process is alive, with the cosigner's lag
// when witnesses cosign the checkpoints (a witness that is down makes no
// instance unhealthy or unready: ingest goes on, the lag grows).
func (s *Server) healthz(c *gin.Context) {
	h := gin.H{"status": "ok"}
	if cos := s.cosignHealth(); cos != nil {
		h["cosign"] = cos
	}
	if lg := s.sealHealth(); lg != nil {
		h["log"] = lg
	}
	c.JSON(http.StatusOK, h)
}

// readyz runs every dependency check with a short deadline and answers
// 503 when any fails, listing each.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 3*time.Second)
	defer cancel()
	type result struct {
		Status string `json:"status"`
		Error  string `json:"error,omitempty"`
	}
	checks := map[string]result{}
	ok := true
	for _, rc := range s.deps.Ready {
		if err := rc.Check(ctx); err != nil {
			ok = false
			checks[rc.Name] = result{Status: "down", Error: err.Error()}
			continue
		}
		checks[rc.Name] = result{Status: "up"}
	}
	status, word := http.StatusOK, "ready"
	if !ok {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	c.JSON(status, gin.H{"status": word, "checks": checks})
}

func jsonEncode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
