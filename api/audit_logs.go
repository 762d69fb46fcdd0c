package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// Reader is what the read endpoints read: a tenant's events and their
// aggregations.
type Reader interface {
	audit.EventReader
	stats.Reader
}

// ReadDeps are what the read endpoints need.
type ReadDeps struct {
	Reader   Reader
	Writer   audit.EventWriter // records the operator team's reads
	Verifier *Verifier
	Cursors  *cursor.Codec
	Limiter  *RateLimiter // nil: no limit
	// Saved enables /api/saved-searches when set.
	Saved savedsearch.Store
}

// ListResponse is the envelope of GET /api/audit-logs.
type ListResponse struct {
	Data []audit.Event `json:"data"`
	// Unreadable names the page's stored rows that are no event (edited
	// behind the service), in place of their events.
	Unreadable []audit.UnreadableEvent `json:"unreadable,omitempty"`
	NextCursor *string                 `json:"nextCursor"`
	HasMore    bool                    `json:"hasMore"`
	Total      audit.Total             `json:"total"`
	Page       *int                    `json:"page,omitempty"`
	PageSize   int                     `json:"pageSize"`
	// Suggestions: for a first page of a search that found nothing, the
	// searches read another way that find something (suggest).
	Suggestions []Suggestion `json:"suggestions,omitempty"`
}

const principalKey = "principal"

func principalOf(c *gin.Context) audit.Principal {
	p, _ := c.Get(principalKey)
	pr, _ := p.(audit.Principal)
	return pr
}

// ReasonHeader carries the declared reason of an operator-team access
// when the token has none.
const ReasonHeader = "X-Access-Reason"

// authenticate verifies the bearer token and admits tenant readers:
// admin, and superadmin with a declared reason. Service credentials
// (ingest) cannot read.
func (s *Server) authenticate(c *gin.Context) {
	p, err := s.read.Verifier.Verify(BearerToken(c.GetHeader("Authorization")))
	if err != nil {
		c.Header("WWW-Authenticate", `Bearer realm="auditlog"`)
		writeError(c, s.deps.Logger, err)
		return
	}
	switch p.Role {
	case audit.RoleAdmin:
	case audit.RoleSuperadmin:
		if p.Reason == "" {
			p.Reason = strings.TrimSpace(c.GetHeader(ReasonHeader))
		}
		if p.Reason == "" {
			writeError(c, s.deps.Logger, &audit.Error{Code: audit.EFORBIDDEN, Message: "an operator-team access must declare a reason",
				Fields: []audit.FieldError{{Field: ReasonHeader, Message: "required for role superadmin (or the reason claim)"}}})
			return
		}
		if !audit.RecordableReason(p.Reason) {
			writeError(c, s.deps.Logger, &audit.Error{Code: audit.EINVALID, Message: "the declared reason cannot be recorded",
				Fields: []audit.FieldError{{Field: ReasonHeader, Message: fmt.Sprintf("must be text of at most %d bytes without control characters", audit.MaxReasonBytes)}}})
			return
		}
	default:
		writeError(c, s.deps.Logger, audit.Errorf(audit.EFORBIDDEN, "role %q cannot read audit logs", p.Role))
		return
	}
	c.Set(principalKey, p)
	c.Next()
}

// limit applies the per-tenant rate limit.
func (s *Server) limit(c *gin.Context) {
	if s.read.Limiter != nil {
		if ok, wait := s.read.Limiter.Allow(principalOf(c).TenantID); !ok {
			secs := int(wait/time.Second) + 1
			c.Header("Retry-After", strconv.Itoa(secs))
			writeError(c, s.deps.Logger, audit.Errorf(audit.ERATELIMIT, "too many requests for this tenant; retry in %d s", secs))
			return
		}
	}
	c.Next()
}

// timeout bounds the handling of a request.
func (s *Server) timeout(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), s.cfg.RequestTimeout)
	defer cancel()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

// recordAccess writes, before an operator-team read is served, the access
// event the tenant will see in its own log. When it cannot be recorded
// the read is refused: an operator access is never unrecorded.
func (s *Server) recordAccess(c *gin.Context, what string, details map[string]any) error {
	if !principalOf(c).CrossTenant() {
		return nil
	}
	p := principalOf(c)
	return s.record(c, audit.ResourceAuditLog, p.TenantID, map[string]any{"operation": what, "request": details})
}

// recordQuestion records an operator-team read of the events of f (a
// list page or stats) once per question: the record's id is derived from
// the caller (user, address and user agent: an access from elsewhere is
// its own record), their declared reason, the question
// (audit.Filter.Question) and the minute, so the list, its histogram and
// the following pages of one question asked within a minute are one record
// (the first request's details stand), and the same question asked later
// is another.
func (s *Server) recordQuestion(c *gin.Context, what string, f audit.Filter) error {
	p := principalOf(c)
	if !p.CrossTenant() {
		return nil
	}
	e := s.selfEvent(c, audit.ActionAccess, audit.Resource{Type: audit.ResourceAuditLog, ID: p.TenantID},
		map[string]any{"operation": what, "request": map[string]any{"query": c.Request.URL.RawQuery}})
	minute := strconv.FormatInt(e.Timestamp.Unix()/60, 10)
	e.ID = audit.DerivedID("question", p.TenantID, p.UserID, p.Reason, e.Actor.IP, e.Actor.UserAgent, f.Question(e.Timestamp.Time), minute)
	return s.writeSelfOnce(c, e)
}

// record writes one self-audit access event of the caller on a resource
// (crossTenant for an operator-team member), durably, before the caller
// is served; when it cannot be written the request is refused.
func (s *Server) record(c *gin.Context, resourceType, resourceID string, details map[string]any) error {
	return s.writeSelf(c, s.selfEvent(c, audit.ActionAccess, audit.Resource{Type: resourceType, ID: resourceID}, details))
}

// selfEvent is an event the service records of its caller's action.
func (s *Server) selfEvent(c *gin.Context, action audit.Action, r audit.Resource, details map[string]any) audit.Event {
	p := principalOf(c)
	return audit.Event{
		ID: audit.NewID(), Timestamp: audit.NewTimestamp(s.deps.Now()), TenantID: p.TenantID,
		Actor:  audit.Actor{ID: p.UserID, Email: p.Email, Role: p.Role, IP: c.ClientIP(), UserAgent: audit.SanitizeText(c.GetHeader("User-Agent"), audit.MaxUserAgentBytes)},
		Action: action, Resource: r, CrossTenant: p.CrossTenant(), Reason: p.Reason, After: recordable(details), RequestID: requestID(c),
	}
}

// writeSelf stores e durably; EUNAVAILABLE when it cannot, and the
// caller then refuses the request it records.
func (s *Server) writeSelf(c *gin.Context, e audit.Event) error { return s.storeSelf(c, e, false) }

// writeSelfOnce is writeSelf for a record whose id is derived from what
// it records: an event already stored under that id (written by a
// parallel or earlier repeat, at another instant) is the record, and
// stands.
func (s *Server) writeSelfOnce(c *gin.Context, e audit.Event) error { return s.storeSelf(c, e, true) }

func (s *Server) storeSelf(c *gin.Context, e audit.Event, once bool) error {
	e.Normalize()
	if err := e.Validate(s.deps.Now()); err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "building the record of the request")
	}
	res, err := s.read.Writer.WriteEvents(c.Request.Context(), []audit.Event{e})
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "the request could not be recorded in the audit log; it is refused")
	}
	if len(res) == 1 && once && res[0].Status == audit.WriteConflict {
		return nil
	}
	if len(res) != 1 || (res[0].Status != audit.WriteCreated && res[0].Status != audit.WriteDuplicate) {
		return audit.Errorf(audit.EUNAVAILABLE, "the request could not be recorded in the audit log; it is refused")
	}
	return nil
}

func (s *Server) listEvents(c *gin.Context) {
	p := principalOf(c)
	q, err := parseListQuery(c.Request.URL.Query(), p.TenantID, s.read.Cursors)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.recordQuestion(c, "list", q.Filter); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	res, err := s.read.Reader.SearchEvents(c.Request.Context(), q)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	out := ListResponse{Data: res.Events, Unreadable: res.Unreadable, HasMore: res.HasMore, Total: res.Total, PageSize: q.PageSize}
	if out.Data == nil {
		out.Data = []audit.Event{}
	}
	if q.After == nil {
		page := q.Page
		out.Page = &page
		if search := c.Query("q"); res.Total.Value == 0 && search != "" {
			out.Suggestions = s.suggest(c.Request.Context(), search, q.Filter)
		}
	}
	if res.HasMore && res.Next != nil {
		// The cursor carries the total on: later pages answer the walk's
		// first count rather than counting again.
		total := res.Total
		cur := s.read.Cursors.Encode(cursor.Cursor{After: *res.Next, Total: &total}, q.Filter, q.Sort)
		out.NextCursor = &cur
	}
	s.writeAppended(c, out.AppendJSON)
}

func (s *Server) getEvent(c *gin.Context) {
	p := principalOf(c)
	id := audit.NormalizeID(c.Param("id"))
	if !audit.ValidID(id) {
		// A malformed id cannot exist: the same 404 as a missing one.
		writeError(c, s.deps.Logger, audit.Errorf(audit.ENOTFOUND, "no audit event %s", id))
		return
	}
	if err := s.recordAccess(c, "get", map[string]any{"id": id}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	e, err := s.read.Reader.GetEvent(c.Request.Context(), p.TenantID, id)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	s.writeAppended(c, e.AppendJSON)
}

func (s *Server) stats(c *gin.Context) {
	p := principalOf(c)
	q, err := parseStatsQuery(c.Request.URL.Query(), p.TenantID)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.recordQuestion(c, "stats", q.Filter); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	st, err := s.eventStats(c.Request.Context(), q)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, st)
}

// eventStats runs a stats query with its histogram bounded: an open date
// range is first resolved to the matching events' span, then the bucket
// count is checked (a 400 naming interval beyond stats.MaxBuckets).
func (s *Server) eventStats(ctx context.Context, q stats.Query) (stats.Stats, error) {
	if q.NeedsSpan() {
		sp, err := s.read.Reader.EventSpan(ctx, q.Filter)
		if err != nil {
			return stats.Stats{}, err
		}
		q = q.Resolve(sp)
	}
	if err := q.CheckBuckets(); err != nil {
		return stats.Stats{}, err
	}
	return s.read.Reader.EventStats(ctx, q)
}

// recordable encodes the request details of a self-audit record with
// every string made recordable (audit.SanitizeText): they come from the
// request (a path id, a filter) and may hold characters an event may not.
func recordable(details map[string]any) json.RawMessage {
	b, _ := json.Marshal(details)
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	var clean func(any) any
	clean = func(x any) any {
		switch t := x.(type) {
		case string:
			return audit.SanitizeText(t, audit.MaxEventBytes/4)
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, e := range t {
				out[audit.SanitizeText(k, audit.MaxFieldNameBytes)] = clean(e)
			}
			return out
		case []any:
			for i, e := range t {
				t[i] = clean(e)
			}
		}
		return x
	}
	out, _ := json.Marshal(clean(v))
	return out
}
