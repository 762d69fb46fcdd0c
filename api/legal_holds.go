package api

import (
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/export"
)

// HoldDeps enables /api/legal-holds when Service is set (issue 55).
type HoldDeps struct {
	Service *hold.Service
	// Plans gives the tenant's plan, whose retention says what a release
	// lets retention delete.
	Plans hold.Plans
	// Unhonoured, when set, says why this deployment's retention cannot
	// honour holds (Elasticsearch's ILM deleting on its own,
	// AUDITLOG_ES_ILM=retention): placing a hold is then refused with it,
	// rather than accepted and ignored.
	Unhonoured error
	// Export writes a hold's events in the periodic export's signed
	// format, as a tar stream (periodicexport.ExportHold); nil: no
	// export.
	Export func(ctx context.Context, out io.Writer, h hold.Hold) error
}

// maxHoldBody bounds the body of a hold.
const maxHoldBody = 16 << 10

// holdRoutes mounts the tenant's legal holds: read by its administrators
// and holders, placed, changed and released by its holders only
// (hold.Authorize).
func (s *Server) holdRoutes() {
	g := s.engine.Group("/api/legal-holds", s.authenticateHolds, s.bound, s.limit, s.timeout)
	g.GET("", s.listHolds)
	g.GET("/report.csv", s.holdReportCSV)
	g.POST("", s.placeHold)
	g.GET("/:id", s.getHold)
	if s.holds.Export != nil {
		g.GET("/:id/export", s.exportHold)
	}
	g.PUT("/:id", s.changeHold)
	g.POST("/:id/release", func(c *gin.Context) { s.holdStep(c, s.holds.Service.AskRelease) })
	g.DELETE("/:id/release", func(c *gin.Context) { s.holdStep(c, s.holds.Service.UndoRelease) })
}

// authenticateHolds admits the tenant roles that reach holds: admin
// (reads) and the hold role; the operator team is refused here, as it
// is by the domain.
func (s *Server) authenticateHolds(c *gin.Context) {
	p, err := s.read.Verifier.Verify(BearerToken(c.GetHeader("Authorization")))
	if err == nil && p.Role != audit.RoleAdmin && p.Role != hold.Role {
		err = audit.Errorf(audit.EFORBIDDEN, "a tenant's legal holds are reached by its administrators (read) and its %s role", hold.Role)
	}
	if err != nil {
		if audit.ErrorCode(err) == audit.EUNAUTHORIZED {
			c.Header("WWW-Authenticate", `Bearer realm="auditlog"`)
		}
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Set(principalKey, p)
	c.Next()
}

func (s *Server) listHolds(c *gin.Context) {
	p := principalOf(c)
	rs, err := s.holds.Service.Reports(c.Request.Context(), p, p.TenantID, s.holds.Plans)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"data": rs})
}

func (s *Server) getHold(c *gin.Context) {
	p := principalOf(c)
	r, err := s.holds.Service.Report(c.Request.Context(), p, p.TenantID, c.Param("id"), s.holds.Plans)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, r)
}

// readHold reads a hold's body strictly (unknown or repeated members are
// a 400 naming them).
func readHold(c *gin.Context) (hold.Request, error) {
	var r hold.Request
	empty, err := decodeStrict(c, maxHoldBody, "legal hold", &r)
	if err == nil && empty {
		err = bodyError(io.EOF, "legal hold")
	}
	return r, err
}

func (s *Server) placeHold(c *gin.Context) {
	p := principalOf(c)
	r, err := readHold(c)
	if err == nil && s.holds.Unhonoured != nil {
		err = s.holds.Unhonoured
	}
	var h hold.Hold
	if err == nil {
		h, err = s.holds.Service.Place(c.Request.Context(), p, p.TenantID, r)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Header("Location", "/api/legal-holds/"+h.ID)
	s.answerHold(c, http.StatusCreated, h)
}

func (s *Server) changeHold(c *gin.Context) {
	p := principalOf(c)
	r, err := readHold(c)
	var h hold.Hold
	if err == nil {
		h, err = s.holds.Service.Change(c.Request.Context(), p, p.TenantID, c.Param("id"), r)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	s.answerHold(c, http.StatusOK, h)
}

// holdStep asks or undoes a release.
func (s *Server) holdStep(c *gin.Context, step func(ctx context.Context, p audit.Principal, tenantID, id string) (hold.Hold, error)) {
	p := principalOf(c)
	h, err := step(c.Request.Context(), p, p.TenantID, c.Param("id"))
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	s.answerHold(c, http.StatusOK, h)
}

// answerHold answers a hold just written with its report; a report that
// cannot be read (the store is slow to show the record) answers the hold
// alone, which the write made so.
func (s *Server) answerHold(c *gin.Context, status int, h hold.Hold) {
	p := principalOf(c)
	r, err := s.holds.Service.Report(c.Request.Context(), p, p.TenantID, h.ID, s.holds.Plans)
	if err != nil {
		r = hold.Report{Hold: h, State: h.State(s.deps.Now())}
	}
	c.JSON(status, r)
}

// holdReportColumns are the columns of the hold report's CSV.
var holdReportColumns = []string{"id", "matter", "reason", "reference", "state", "placedBy", "placedAt", "scope.from", "scope.to", "scope.q",
	"events", "first", "last", "release.requestedBy", "release.requestedAt", "release.effectiveAt", "releaseAt", "pastRetentionAt"}

func (s *Server) holdReportCSV(c *gin.Context) {
	p := principalOf(c)
	rs, err := s.holds.Service.Reports(c.Request.Context(), p, p.TenantID, s.holds.Plans)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	ts := func(t *audit.Timestamp) string {
		if t == nil {
			return ""
		}
		return t.String()
	}
	out := export.AppendRow(nil, holdReportColumns...)
	for _, r := range rs {
		var by, at, eff string
		if r.Release != nil {
			by, at, eff = r.Release.RequestedBy, r.Release.RequestedAt.String(), r.Release.EffectiveAt.String()
		}
		out = export.AppendRow(out, r.ID, r.Matter, r.Reason, r.Reference, string(r.State), r.PlacedBy, r.PlacedAt.String(),
			ts(r.Scope.From), ts(r.Scope.To), r.Scope.Q, strconv.FormatInt(r.Events, 10), ts(r.First), ts(r.Last),
			by, at, eff, ts(r.ReleaseAt), strconv.FormatInt(r.PastRetentionAt, 10))
	}
	c.Header("Content-Disposition", `attachment; filename="legal-holds.csv"`)
	c.Data(http.StatusOK, "text/csv; charset=utf-8", out)
}

// exportHold streams the hold's events as a signed, verifiable tar.
// Once the answer has begun, a failure can only cut it short: the
// verifier then finds the copy incomplete.
func (s *Server) exportHold(c *gin.Context) {
	p := principalOf(c)
	h, err := s.holds.Service.Get(c.Request.Context(), p, p.TenantID, c.Param("id"))
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Header("Content-Type", "application/x-tar")
	c.Header("Content-Disposition", `attachment; filename="legal-hold-`+h.ID+`.tar"`)
	c.Status(http.StatusOK)
	if err := s.holds.Export(c.Request.Context(), c.Writer, h); err != nil {
		s.deps.Logger.ErrorContext(c.Request.Context(), "legal hold export cut short", "requestId", requestID(c), "hold", h.ID, "err", err)
		panic(http.ErrAbortHandler) // the client sees a truncated answer, never a complete-looking one
	}
}
