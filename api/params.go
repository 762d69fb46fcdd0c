package api

import (
	"fmt"
	"net/url"
	"sort"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// MaxQueryBytes bounds the raw query string of any request.
const MaxQueryBytes = 8 << 10

// checkParams refuses, on every endpoint and before any handler, a query
// string a handler could misread: malformed percent-escapes (url.Query
// would silently drop them), a name or value with a control character or
// invalid UTF-8 (a NUL once reached SQLite's full-text index and answered
// 503), and an empty value (?to= is not "no to": it is a mistake, and
// reading it as absent would silently widen a query). Every problem is
// listed in one 400.
func (s *Server) checkParams(c *gin.Context) {
	raw := c.Request.URL.RawQuery
	if raw == "" {
		c.Next()
		return
	}
	if len(raw) > MaxQueryBytes {
		writeError(c, s.deps.Logger, &audit.Error{Code: audit.EINVALID, Message: "query string too long",
			Fields: []audit.FieldError{{Field: "query", Message: fmt.Sprintf("must be at most %d bytes", MaxQueryBytes)}}})
		return
	}
	v, err := url.ParseQuery(raw)
	if err != nil {
		writeError(c, s.deps.Logger, &audit.Error{Code: audit.EINVALID, Message: "malformed query string",
			Fields: []audit.FieldError{{Field: "query", Message: err.Error()}}})
		return
	}
	fe := checkValues(v)
	if len(fe) > 0 {
		writeError(c, s.deps.Logger, &audit.Error{Code: audit.EINVALID, Message: "invalid query parameters", Fields: fe})
		return
	}
	c.Next()
}

// checkValues lists the parameters of v that are empty, or whose name or
// value is not text without control characters, sorted by name. The
// query string and an export's JSON body both go through it.
func checkValues(v url.Values) []audit.FieldError {
	var fe []audit.FieldError
	for name, values := range v {
		field := name
		if !audit.CleanText(name) {
			field = fmt.Sprintf("%q", name)
			fe = append(fe, audit.FieldError{Field: field, Message: "parameter names must be text without control characters"})
			continue
		}
		for _, val := range values {
			switch {
			case val == "":
				fe = append(fe, audit.FieldError{Field: field, Message: "must not be empty: leave the parameter out instead"})
			case !audit.CleanText(val):
				fe = append(fe, audit.FieldError{Field: field, Message: "must be UTF-8 text without control characters"})
			default:
				continue
			}
			break
		}
	}
	sort.Slice(fe, func(i, j int) bool { return fe[i].Field < fe[j].Field })
	return fe
}
