package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditlog/auditlog/audit"
)

// decodeStrict decodes the request body, at most limit bytes, into v as
// one JSON object, by go-json-experiment/json with unknown members
// refused: the library that reads every stored row (issue 54), so a body
// is held to the same rules as an event. An unknown member, one in
// another case ("Reason" for "reason"), a member given twice, invalid
// UTF-8 or a wrong type is a 400 naming the member; a larger body a 413.
// It reports an empty body (v untouched) as empty.
func decodeStrict(c *gin.Context, limit int64, what string, v any) (empty bool, err error) {
	raw, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return false, audit.Errorf(audit.ETOOLARGE, "the %s body is larger than %d bytes", what, limit)
	case err != nil:
		return false, audit.Wrap(audit.EINVALID, err, "the %s body could not be read", what)
	case len(bytes.TrimSpace(raw)) == 0:
		return true, nil
	}
	if err := jsonv2.Unmarshal(raw, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return false, bodyError(err, what)
	}
	return false, nil
}

// bodyError names the member of a decoding error of the what body (its
// JSON pointer written as the API names fields: destination.url,
// notify[0]).
func bodyError(err error, what string) error {
	invalid := func(field, msg string) error {
		return &audit.Error{Code: audit.EINVALID, Message: "invalid " + what, Fields: []audit.FieldError{{Field: field, Message: msg}}}
	}
	var sem *jsonv2.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return audit.Errorf(audit.EINVALID, "the %s body must be a JSON object", what)
	case errors.As(err, &sem):
		field := fieldOf(sem.JSONPointer)
		var typ *json.UnmarshalTypeError // from a type's own UnmarshalJSON
		switch {
		case errors.Is(err, jsonv2.ErrUnknownName):
			return invalid(field, "is not a known field")
		case errors.As(err, &typ) && typ.Field != "":
			return invalid(joinField(field, typ.Field), "must be a JSON "+typ.Type.Kind().String())
		case sem.GoType != nil && field != "":
			return invalid(field, "must be a JSON "+sem.GoType.Kind().String())
		}
	case errors.As(err, &syn):
		field := fieldOf(syn.JSONPointer)
		switch {
		case errors.Is(err, jsontext.ErrDuplicateName):
			return invalid(field, "is given more than once")
		case field != "" && syn.Err != nil:
			return invalid(field, "is not valid JSON here: "+syn.Err.Error()) // invalid UTF-8, a bad escape
		}
	}
	return audit.Errorf(audit.EINVALID, "the %s body must be one JSON object: %v", what, err)
}

// fieldOf writes a JSON pointer (/destination/headers/X-Key, /notify/0)
// as the API names fields (destination.headers.X-Key, notify[0]).
func fieldOf(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}
