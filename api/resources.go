package api

import (
	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/history"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// The parameters of the resource endpoints, declared once (checked
// against the OpenAPI document like the others).
var (
	historyParams = map[string]bool{"pageSize": true, "cursor": true}
	compareParams = map[string]bool{"base": true, "target": true}
)

// HistoryResponse is a page of a resource's versions, newest first.
type HistoryResponse struct {
	Data       []history.Entry `json:"data"`
	NextCursor *string         `json:"nextCursor"`
	HasMore    bool            `json:"hasMore"`
}

// resourcePath reads {type} and {id}: a malformed one cannot have a
// history, so it is the same 404 as an unknown one.
func resourcePath(c *gin.Context) (string, string, error) {
	typ, id := c.Param("type"), c.Param("id")
	if !audit.ValidToken(typ) || id == "" || len(id) > 256 || audit.SanitizeText(id, 256) != id {
		return "", "", audit.Errorf(audit.ENOTFOUND, "no history of %s %s", typ, id)
	}
	// Resource ids are stored in lower case (Event.Normalize), as the
	// filter on them matches (Filter.Normalize).
	return typ, strings.ToLower(id), nil
}

// parseHistoryQuery reads the parameters of a history page.
func parseHistoryQuery(v url.Values, f audit.Filter, cursors *cursor.Codec) (audit.Query, error) {
	p := &queryParser{v: v}
	p.unknown(historyParams)
	// A history page shows no total: the store counts nothing.
	q := audit.Query{Filter: f, Sort: audit.DefaultSort, Page: 1, NoTotal: true}
	q.PageSize = p.int("pageSize", audit.DefaultPageSize, 1, audit.MaxPageSize)
	if c := p.single("cursor"); c != "" {
		if cur, err := cursors.Decode(c, f, q.Sort); err != nil {
			p.errs = append(p.errs, audit.ErrorFields(err)...)
		} else {
			q.After = &cur.After
		}
	}
	return q, p.err()
}

func (s *Server) history(c *gin.Context) {
	p := principalOf(c)
	typ, id, err := resourcePath(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	q, err := parseHistoryQuery(c.Request.URL.Query(), history.Filter(p.TenantID, typ, id), s.read.Cursors)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.recordAccess(c, "history", map[string]any{"resource": typ + "/" + id}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	res, err := s.read.Reader.SearchEvents(c.Request.Context(), q)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if len(res.Events) == 0 && q.After == nil {
		writeError(c, s.deps.Logger, audit.Errorf(audit.ENOTFOUND, "no history of %s %s", typ, id))
		return
	}
	out := HistoryResponse{Data: make([]history.Entry, 0, len(res.Events)), HasMore: res.HasMore}
	for i := range res.Events {
		out.Data = append(out.Data, history.NewEntry(&res.Events[i]))
	}
	if res.HasMore && res.Next != nil {
		cur := s.read.Cursors.Encode(cursor.Cursor{After: *res.Next}, q.Filter, q.Sort)
		out.NextCursor = &cur
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) compare(c *gin.Context) {
	typ, id, err := resourcePath(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	qp := &queryParser{v: c.Request.URL.Query()}
	qp.unknown(compareParams)
	base, target := audit.NormalizeID(qp.single("base")), audit.NormalizeID(qp.single("target"))
	for name, v := range map[string]string{"base": base, "target": target} {
		if v == "" {
			qp.fail(name, "is required: the id of an event of this resource")
		}
	}
	if err := qp.err(); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.recordAccess(c, "compare", map[string]any{"resource": typ + "/" + id, "base": base, "target": target}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	b, err := s.version(c, typ, id, base)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	t, err := s.version(c, typ, id, target)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	cmp, err := history.Compare(&b, &t)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, cmp)
}

// version reads one version of a resource: an event of the caller's
// tenant on that resource, or ENOTFOUND.
func (s *Server) version(c *gin.Context, typ, id, eventID string) (audit.Event, error) {
	notFound := audit.Errorf(audit.ENOTFOUND, "event %s is not a version of %s %s", eventID, typ, id)
	if !audit.ValidID(eventID) {
		return audit.Event{}, notFound
	}
	e, err := s.read.Reader.GetEvent(c.Request.Context(), principalOf(c).TenantID, eventID)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return e, notFound
	}
	if err != nil {
		return e, err
	}
	if e.Resource.Type != typ || e.Resource.ID != id || e.Action == audit.ActionAccess {
		return e, notFound
	}
	return e, nil
}
