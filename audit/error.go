package audit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Application error codes. Transports map each code to their own status
// (the HTTP table lives in api/); backends never choose a status themselves.
const (
	EINVALID      = "invalid"       // the input breaks a rule; Fields says which
	ENOTFOUND     = "not_found"     // no such thing, or not visible to the caller
	ECONFLICT     = "conflict"      // the thing exists already (e.g. a duplicate event id)
	EUNAUTHORIZED = "unauthorized"  // no valid credentials
	EFORBIDDEN    = "forbidden"     // valid credentials, not allowed
	ETOOLARGE     = "too_large"     // the input exceeds a documented size limit
	ERATELIMIT    = "rate_limited"  // too many requests; retry later
	EUNAVAILABLE  = "unavailable"   // a dependency (store, broker) cannot be reached
	EINTERNAL     = "internal"      // a bug or an unexpected failure; never shown to clients
	ECORRUPT      = "corrupt"       // a stored event is no event (edited behind the service): named to the client, it is evidence
	ENOTSUPPORTED = "not_supported" // the backend lacks a feature this call needs
)

// FieldError names one offending field and why it was rejected. Field uses
// the wire name with dots for nesting ("actor.email", "diff.queue_name").
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the one application error type. Code is machine-readable,
// Message is safe to show to a client, and Fields lists per-field problems
// for EINVALID. Err, when set, is the underlying cause and is only logged.
type Error struct {
	Code    string
	Message string
	Fields  []FieldError
	// Details, when set, is structured context a client acts on (the
	// newer version of a conflicting restore); it is shown to clients.
	Details any
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "; %s: %s", f.Field, f.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error with the given code and message, keeping err as
// the logged cause.
func Wrap(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of err. Errors that are not
// *Error, and EINTERNAL errors, get a generic text: internals are never
// shown to clients.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Message
	}
	return "internal error"
}

// ErrorFields returns the per-field problems of err, if any.
func ErrorFields(err error) []FieldError {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}

// ErrorDetails returns the structured details of err, if any.
func ErrorDetails(err error) any {
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Details
	}
	return nil
}

// FieldErrors collects per-field problems; it turns into an EINVALID *Error.
type FieldErrors []FieldError

// Add lists a problem of field.
func (fe *FieldErrors) Add(field, format string, args ...any) {
	*fe = append(*fe, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Err is fe as an EINVALID error with message, or nil when fe is empty.
func (fe FieldErrors) Err(message string) error {
	if len(fe) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Message: message, Fields: fe}
}

// Names reports whether a problem of field is already listed.
func (fe FieldErrors) Names(field string) bool {
	for _, f := range fe {
		if f.Field == field {
			return true
		}
	}
	return false
}

// Sorted orders fe by field, so that a map's problems come in one order.
func (fe FieldErrors) Sorted() FieldErrors {
	slices.SortStableFunc(fe, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
	return fe
}
