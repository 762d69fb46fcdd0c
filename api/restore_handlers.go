package api

import (
	"fmt"
	"github.com/auditlog/auditlog/audit/history"
	"github.com/auditlog/auditlog/audit/restorejob"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// authenticateRestore admits any tenant user whose token is valid and
// whose claims can be recorded, whatever the role: the role is checked by
// the restore itself, so that a refused attempt is recorded in the
// tenant's log too. A service credential (ingest) is refused here.
func (s *Server) authenticateRestore(c *gin.Context) {
	p, err := s.read.Verifier.verifyClaims(BearerToken(c.GetHeader("Authorization")))
	if err == nil && p.Role == audit.RoleIngest {
		err = audit.Errorf(audit.EFORBIDDEN, "an ingest credential may only write events")
	}
	if err == nil {
		if !audit.ValidToken(p.Role) {
			err = audit.Errorf(audit.EFORBIDDEN, "role %q may not use this service", p.Role)
		} else {
			err = checkRecordable(p)
		}
	}
	if err == nil && p.Role == audit.RoleSuperadmin && p.Reason == "" {
		// The operator team's declared reason, as for its reads.
		p.Reason = strings.TrimSpace(c.GetHeader(ReasonHeader))
		if !audit.RecordableReason(p.Reason) {
			err = &audit.Error{Code: audit.EINVALID, Message: "the declared reason cannot be recorded",
				Fields: []audit.FieldError{{Field: ReasonHeader, Message: fmt.Sprintf("must be text of at most %d bytes without control characters", audit.MaxReasonBytes)}}}
		}
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

// restore asks the owning service to put back a state of the event's
// resource. The attempt is recorded in the tenant's log before anything
// else happens, refused or not; without that record the answer is 503.
func (s *Server) restore(c *gin.Context) {
	p := principalOf(c)
	body, err := parseRestoreBody(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	key, err := idempotencyKey(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	ctx, id := c.Request.Context(), audit.NormalizeID(c.Param("id"))
	reqID := restorejob.RequestID(p.TenantID, key)
	prior, err := s.restores.Store.GetRestore(ctx, p.TenantID, reqID)
	switch {
	case err == nil && !prior.SameAsk(id, body.Version, body.Fields):
		var refusal error = audit.Errorf(audit.ECONFLICT, "%s %q was used for another restore (request %s); use a new key", IdempotencyKeyHeader, key, reqID)
		if err := s.recordRestore(c, reqID, id, nil, body, refusal); err != nil {
			refusal = err
		}
		writeError(c, s.deps.Logger, refusal)
		return
	case err == nil:
		s.answerRestore(c, prior) // the first answer, again
		return
	case audit.ErrorCode(err) != audit.ENOTFOUND:
		writeError(c, s.deps.Logger, err)
		return
	}
	req, src, refusal := s.planRestore(c, id, body)
	if err := s.recordRestore(c, reqID, id, src, body, refusal); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if refusal != nil {
		writeError(c, s.deps.Logger, refusal)
		return
	}
	now := s.deps.Now()
	req.RequestID, req.CreatedAt = reqID, audit.NewTimestamp(now)
	req.RequestedBy = audit.Actor{ID: p.UserID, Email: p.Email, Role: p.Role, IP: c.ClientIP(), UserAgent: audit.SanitizeText(c.GetHeader("User-Agent"), audit.MaxUserAgentBytes)}
	stored, _, err := s.restores.Store.CreateRestore(ctx, restorejob.Record{Request: req, IdempotencyKey: key, Status: restorejob.Pending, NextAttemptAt: now})
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if s.restores.Notify != nil {
		s.restores.Notify()
	}
	s.answerRestore(c, stored)
}

func (s *Server) answerRestore(c *gin.Context, r restorejob.Record) {
	v := restoreView(r)
	c.Header("Location", v.StatusURL)
	c.JSON(http.StatusAccepted, v)
}

// planRestore checks the ask against the role, the source event, the
// plan's retention and the resource's newest version, and builds the
// request; it returns the source event when it was found.
func (s *Server) planRestore(c *gin.Context, id string, b RestoreBody) (restorejob.Request, *audit.Event, error) {
	p, ctx := principalOf(c), c.Request.Context()
	reason := declaredReason(p, b)
	if err := restorejob.CheckRestoreRole(p, reason); err != nil {
		return restorejob.Request{}, nil, err
	}
	if !audit.ValidID(id) {
		return restorejob.Request{}, nil, restorejob.NotFound(id)
	}
	src, err := s.read.Reader.GetEvent(ctx, p.TenantID, id)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return restorejob.Request{}, nil, restorejob.NotFound(id)
	}
	if err != nil {
		return restorejob.Request{}, nil, err
	}
	if s.restores.Tenants != nil {
		plan, err := s.restores.Tenants.Plan(ctx, p.TenantID)
		if audit.ErrorCode(err) == audit.ENOTFOUND {
			plan, err = s.restores.DefaultPlan, nil
		}
		if err != nil {
			return restorejob.Request{}, &src, err
		}
		if err := restorejob.CheckRestorable(&src, plan, s.deps.Now()); err != nil {
			return restorejob.Request{}, &src, err
		}
	}
	latest := src
	res, err := s.read.Reader.SearchEvents(ctx, audit.Query{Filter: history.Filter(p.TenantID, src.Resource.Type, src.Resource.ID),
		Sort: audit.DefaultSort, Page: 1, PageSize: 1, NoTotal: true, Fresh: true})
	if err != nil {
		return restorejob.Request{}, &src, err
	}
	if len(res.Events) > 0 {
		latest = res.Events[0]
	}
	req, err := restorejob.PlanRestore(restorejob.Ask{Source: &src, Latest: &latest, LatestSeen: b.LatestSeen, Force: b.Force,
		Version: b.Version, Fields: b.Fields, By: p, Reason: reason})
	return req, &src, err
}

// recordRestore writes the record of a restore attempt: a create of the
// restore_request resource named by the request id, outcome failure with
// the refusal when refused. Its id derives from the request id and the
// outcome (restorejob.RecordID): parallel or repeated asks with one
// idempotency key write one record, as they make one request.
func (s *Server) recordRestore(c *gin.Context, reqID, sourceID string, src *audit.Event, b RestoreBody, refusal error) error {
	p := principalOf(c)
	version := b.Version
	if version == "" {
		version = restorejob.Before
	}
	details := map[string]any{"operation": "restore", "sourceEventId": sourceID, "version": version, "fields": b.Fields,
		"latestSeen": b.LatestSeen, "force": b.Force}
	if src != nil {
		details["resource"] = src.Resource
	}
	if refusal != nil {
		details["refusal"] = audit.ErrorMessage(refusal)
		details["status"] = statusOf[audit.ErrorCode(refusal)]
	}
	e := s.selfEvent(c, audit.ActionCreate, audit.Resource{Type: audit.ResourceRestoreRequest, ID: reqID}, details)
	e.Reason = declaredReason(p, b)
	if e.Reason == "" && p.CrossTenant() {
		e.Reason = "(no reason declared)"
	}
	e.Reason = audit.SanitizeText(e.Reason, audit.MaxReasonBytes)
	if !p.CrossTenant() {
		e.Category = audit.CategoryConfiguration
	}
	outcome := "accepted"
	if refusal != nil {
		e.Outcome, outcome = audit.OutcomeFailure, audit.ErrorMessage(refusal)
	}
	e.ID = restorejob.RecordID(reqID, outcome)
	return s.writeSelfOnce(c, e)
}

// getRestore answers a restore request's status. A pending one is settled
// first from the owner's outcome event, if it has arrived.
func (s *Server) getRestore(c *gin.Context) {
	p, id := principalOf(c), strings.ToLower(c.Param("id"))
	if err := s.recordAccess(c, "restore status", map[string]any{"id": id}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	notFound := audit.Errorf(audit.ENOTFOUND, "no restore request %s in this tenant", c.Param("id"))
	if !audit.ValidUUID(id) {
		writeError(c, s.deps.Logger, notFound)
		return
	}
	r, err := s.restores.Store.GetRestore(c.Request.Context(), p.TenantID, id)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		err = notFound
	}
	if err == nil && r.Status == restorejob.Pending {
		err = s.settleRestore(c, &r)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, restoreView(r))
}

// settleRestore looks for the owner's outcome event of r (the first
// update of the resource carrying restoredFrom = r's id) and stores the
// outcome it reports.
func (s *Server) settleRestore(c *gin.Context, r *restorejob.Record) error {
	f := history.Filter(r.TenantID, r.Resource.Type, r.Resource.ID)
	f.RestoredFrom = r.RequestID
	res, err := s.read.Reader.SearchEvents(c.Request.Context(), audit.Query{Filter: f, Sort: audit.Sort{Field: audit.SortTimestamp}, Page: 1, PageSize: 1, NoTotal: true})
	if err != nil || len(res.Events) == 0 || !r.Settle(&res.Events[0]) {
		return err
	}
	err = s.restores.Store.UpdateRestore(c.Request.Context(), r)
	if audit.ErrorCode(err) == audit.ECONFLICT {
		return nil // changed meanwhile (delivered or settled): the next read settles it
	}
	return err
}
