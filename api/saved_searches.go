package api

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// maxSavedSearchBody bounds the body of a saved search.
const maxSavedSearchBody = 8 << 10

// SavedSearchBody is what POST and PUT /api/saved-searches take.
type SavedSearchBody struct {
	Name  string `json:"name"`
	Query string `json:"query"`
	Range string `json:"range"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// SavedSearchView is one saved search as the API shows it.
type SavedSearchView struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Query     string           `json:"query"`
	Range     string           `json:"range"`
	From      *audit.Timestamp `json:"from"`
	To        *audit.Timestamp `json:"to"`
	CreatedAt audit.Timestamp  `json:"createdAt"`
	UpdatedAt audit.Timestamp  `json:"updatedAt"`
}

func savedView(s savedsearch.Search) SavedSearchView {
	return SavedSearchView{ID: s.ID, Name: s.Name, Query: s.Query, Range: s.Range, From: millis(s.From), To: millis(s.To),
		CreatedAt: audit.NewTimestamp(s.CreatedAt), UpdatedAt: audit.NewTimestamp(s.UpdatedAt)}
}

// savedRoutes mounts the caller's saved searches.
func (s *Server) savedRoutes() {
	g := s.engine.Group("/api/saved-searches", s.authenticate, s.bound, s.limit, s.timeout)
	g.GET("", s.listSavedSearches)
	g.POST("", func(c *gin.Context) { s.saveSearch(c, "") })
	g.PUT("/:id", func(c *gin.Context) { s.saveSearch(c, c.Param("id")) })
	g.DELETE("/:id", s.deleteSavedSearch)
}

// savedOwner is the tenant and user whose list the caller reads.
func savedOwner(c *gin.Context) (tenant, user string, err error) {
	p := principalOf(c)
	if p.UserID == "" {
		return "", "", audit.Errorf(audit.EFORBIDDEN, "saved searches belong to a user: the token names none (sub)")
	}
	return p.TenantID, p.UserID, nil
}

func (s *Server) listSavedSearches(c *gin.Context) {
	tenant, user, err := savedOwner(c)
	if err == nil {
		var l savedsearch.Searches
		if l, err = s.read.Saved.SavedSearches(c.Request.Context(), tenant, user); err == nil {
			out := make([]SavedSearchView, 0, len(l.Items))
			for _, it := range l.Items {
				out = append(out, savedView(it))
			}
			c.JSON(http.StatusOK, gin.H{"data": out})
			return
		}
	}
	writeError(c, s.deps.Logger, err)
}

// saveSearch creates (id "") or replaces the caller's saved search.
func (s *Server) saveSearch(c *gin.Context, id string) {
	var b SavedSearchBody
	empty, err := decodeStrict(c, maxSavedSearchBody, "saved search", &b)
	if err == nil && empty {
		err = bodyError(io.EOF, "saved search")
	}
	var ss savedsearch.Search
	if err == nil {
		ss, err = parseSavedSearch(b, principalOf(c).TenantID)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	ss.ID = id
	if id == "" {
		ss.ID = uuid.NewString()
	}
	saved, err := s.changeSaved(c, func(l *savedsearch.Searches) (savedsearch.Search, error) { return l.Save(ss, id == "", s.deps.Now()) })
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	status := http.StatusOK
	if id == "" {
		status = http.StatusCreated
		c.Header("Location", "/api/saved-searches/"+saved.ID)
	}
	c.JSON(status, savedView(saved))
}

func (s *Server) deleteSavedSearch(c *gin.Context) {
	if _, err := s.changeSaved(c, func(l *savedsearch.Searches) (savedsearch.Search, error) {
		return savedsearch.Search{}, l.Delete(c.Param("id"))
	}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// maxSavedAttempts bounds the compare-and-set rounds of one change: each
// round one writer wins, so up to this many parallel changes of one
// user's list (tabs, scripts) all land.
const maxSavedAttempts = 16

// changeSaved applies change to the caller's list and writes it by
// compare-and-set, again on a fresh read when a parallel change won.
func (s *Server) changeSaved(c *gin.Context, change func(*savedsearch.Searches) (savedsearch.Search, error)) (savedsearch.Search, error) {
	tenant, user, err := savedOwner(c)
	if err != nil {
		return savedsearch.Search{}, err
	}
	ctx := c.Request.Context()
	for attempt := 0; ; attempt++ {
		l, err := s.read.Saved.SavedSearches(ctx, tenant, user)
		if err != nil {
			return savedsearch.Search{}, err
		}
		out, err := change(&l)
		if err != nil {
			return out, err
		}
		if err = s.read.Saved.PutSavedSearches(ctx, &l); audit.ErrorCode(err) != audit.ECONFLICT || attempt == maxSavedAttempts-1 {
			return out, err
		}
	}
}

// parseSavedSearch checks a body: the domain's rules, and its query
// parsed as the list's filters and sort are (the time range is kept in
// range, from and to; paging is not kept). Errors name the field, a
// query parameter as query.<name>.
func parseSavedSearch(b SavedSearchBody, tenant string) (savedsearch.Search, error) {
	ss := savedsearch.Search{Name: b.Name, Query: strings.TrimPrefix(b.Query, "?"), Range: b.Range}
	var errs []audit.FieldError
	times := &queryParser{v: url.Values{"from": {b.From}, "to": {b.To}}}
	ss.From, ss.To = times.time("from"), times.time("to")
	errs = append(errs, times.errs...)
	if err := ss.Normalize(); err != nil {
		errs = append(errs, audit.ErrorFields(err)...)
	}
	if v, err := url.ParseQuery(ss.Query); err != nil {
		errs = append(errs, audit.FieldError{Field: "query", Message: "must be a URL query string like q=actor%3Agrace*&action=update"})
	} else if len(ss.Query) <= savedsearch.MaxSavedSearchFilter {
		p := &queryParser{v: v}
		p.unknown(filterParams, sortParams)
		for _, k := range []string{"from", "to"} {
			if v.Has(k) {
				p.fail(k, "is not kept in the query: the time range is range, from and to")
			}
		}
		p.filter(tenant)
		p.sort()
		for _, e := range p.errs {
			errs = append(errs, audit.FieldError{Field: "query." + e.Field, Message: e.Message})
		}
	}
	if len(errs) > 0 {
		return ss, &audit.Error{Code: audit.EINVALID, Message: "invalid saved search", Fields: errs}
	}
	return ss, nil
}
