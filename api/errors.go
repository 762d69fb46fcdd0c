package api

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// codeMethodNotAllowed is the transport's own code: a path that exists
// asked with a method it does not take.
const codeMethodNotAllowed = "method_not_allowed"

// statusOf is the one table from application error codes to HTTP statuses.
// Backends never choose a status; they return *audit.Error codes.
var statusOf = map[string]int{
	codeMethodNotAllowed: http.StatusMethodNotAllowed,
	codeOverloaded:       http.StatusServiceUnavailable,
	audit.EINVALID:       http.StatusBadRequest,
	audit.ENOTFOUND:      http.StatusNotFound,
	audit.ECONFLICT:      http.StatusConflict,
	audit.EUNAUTHORIZED:  http.StatusUnauthorized,
	audit.EFORBIDDEN:     http.StatusForbidden,
	audit.ETOOLARGE:      http.StatusRequestEntityTooLarge,
	audit.ERATELIMIT:     http.StatusTooManyRequests,
	audit.EUNAVAILABLE:   http.StatusServiceUnavailable,
	audit.ENOTSUPPORTED:  http.StatusNotImplemented,
	audit.EINTERNAL:      http.StatusInternalServerError,
	// A stored event that is no event: the request is sound and the
	// record it asks for exists, in a state that cannot be shown (edited
	// behind the service). Never a 500: the answer names it.
	audit.ECORRUPT: http.StatusConflict,
}

// titleOf is the RFC 9457 title of each code.
var titleOf = map[string]string{
	codeMethodNotAllowed: "Method not allowed",
	codeOverloaded:       "Overloaded",
	audit.EINVALID:       "Invalid request",
	audit.ENOTFOUND:      "Not found",
	audit.ECONFLICT:      "Conflict",
	audit.EUNAUTHORIZED:  "Unauthorized",
	audit.EFORBIDDEN:     "Forbidden",
	audit.ETOOLARGE:      "Payload too large",
	audit.ERATELIMIT:     "Too many requests",
	audit.EUNAVAILABLE:   "Service unavailable",
	audit.ENOTSUPPORTED:  "Not supported by this store",
	audit.EINTERNAL:      "Internal error",
	audit.ECORRUPT:       "Unreadable stored event",
}

// Problem is an RFC 9457 problem document with per-field errors.
type Problem struct {
	Type      string             `json:"type"`
	Title     string             `json:"title"`
	Status    int                `json:"status"`
	Detail    string             `json:"detail,omitempty"`
	Instance  string             `json:"instance,omitempty"`
	Code      string             `json:"code"`
	RequestID string             `json:"requestId,omitempty"`
	Errors    []audit.FieldError `json:"errors,omitempty"`
	// Details is the structured context of some errors (the newer
	// version of a resource in a restore conflict).
	Details any `json:"details,omitempty"`
}

// ProblemContentType is the media type of every error answer.
const ProblemContentType = "application/problem+json"

// writeError answers with the problem document for err. Internal errors
// are logged with the request id and masked for the client.
func writeError(c *gin.Context, log *slog.Logger, err error) {
	code := audit.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		code, status = audit.EINTERNAL, http.StatusInternalServerError
	}
	rid := requestID(c)
	if status >= 500 && code != codeOverloaded { // a shed request is counted (Shedder), not logged
		log.ErrorContext(c.Request.Context(), "request failed", "requestId", rid, "code", code, "err", err.Error(),
			"method", c.Request.Method, "path", c.Request.URL.Path)
	}
	p := Problem{
		Type:      "https://auditlog.dev/problems/" + code,
		Title:     titleOf[code],
		Status:    status,
		Detail:    audit.ErrorMessage(err),
		Instance:  c.Request.URL.Path,
		Code:      code,
		RequestID: rid,
		Errors:    audit.ErrorFields(err),
		Details:   audit.ErrorDetails(err),
	}
	if code == audit.EINTERNAL {
		p.Errors = nil
	}
	c.Header("Content-Type", ProblemContentType)
	c.Header("Cache-Control", "no-store")
	c.Render(status, problemRender{p})
	c.Abort()
}

// problemRender writes a Problem as JSON under the problem media type.
type problemRender struct{ p Problem }

func (r problemRender) Render(w http.ResponseWriter) error {
	r.WriteContentType(w)
	return jsonEncode(w, r.p)
}

func (r problemRender) WriteContentType(w http.ResponseWriter) {
	w.Header().Set("Content-Type", ProblemContentType)
}
