package audit

import (
	"errors"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// strictJSON is the one decoding of an event on the wire (both ingest
// routes, through DecodeEvent): github.com/go-json-experiment/json, the
// module that Go's encoding/json/v2 is built from, usable without a
// GOEXPERIMENT build setting. It refuses, at any depth of the event
// (before, after and a change's values included):
//   - a key that is not a field's (RejectUnknownMembers);
//   - a key that names a field only up to case (`ID` for `id`): names
//     match exactly;
//   - a key given twice in one object, where encoding/json keeps the
//     last one;
//   - invalid UTF-8, where encoding/json writes U+FFFD;
//   - anything after the event's one JSON value.
//
// docs/design.md ("One strict decode, one schema") says why this library and not
// sonic, goccy or encoding/json.
var strictJSON = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// decodeStrict decodes data into e, refusing what strictJSON refuses:
// the common shape by fastDecode, anything else by the library.
func decodeStrict(data []byte, e *Event) error {
	return decodeStrictWith(newScanner(data), data, e)
}

// decodeStrictWith is decodeStrict with s, the scanner over data.
func decodeStrictWith(s scanner, data []byte, e *Event) error {
	if fastDecodeWith(s, e) {
		return nil
	}
	*e = Event{}
	return json.Unmarshal(data, e, strictJSON)
}

// strictProblem names the field and the reason of an error decodeStrict
// returned: the JSON pointer the library reports, written as the API
// writes fields (actor.id, diff.name.from, before.some.key).
func strictProblem(err error) FieldError {
	var (
		syn *jsontext.SyntacticError
		sem *json.SemanticError
	)
	switch {
	case errors.As(err, &syn):
		f := pointerField(syn.JSONPointer)
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return FieldError{Field: f, Message: "is given more than once (each key may appear once in an object)"}
		case strings.Contains(syn.Err.Error(), "UTF-8"): // the library exports no error value for it
			return FieldError{Field: f, Message: "must be valid UTF-8"}
		}
		return FieldError{Field: f, Message: "is not valid JSON: " + syn.Err.Error()}
	case errors.As(err, &sem):
		f := pointerField(sem.JSONPointer)
		if errors.Is(sem.Err, json.ErrUnknownName) {
			return FieldError{Field: f, Message: "is not a known field (names are case-sensitive)"}
		}
		var ae *Error
		switch {
		case errors.As(sem.Err, &ae):
			return FieldError{Field: f, Message: ae.Message}
		case sem.Err != nil && f != "":
			return FieldError{Field: f, Message: sem.Err.Error()}
		case f != "":
			return FieldError{Field: f, Message: "has the wrong JSON type"}
		}
	}
	return FieldError{Field: "", Message: "the event must be one JSON object: " + err.Error()}
}

// pointerField writes a JSON pointer as a dotted field name.
func pointerField(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		parts = append(parts, tok)
	}
	return strings.Join(parts, ".")
}

// DecodeStoredEvent decodes a stored event's JSON as DecodeStoredRow
// does, without its checks of the key and the tenant: the one decoding of
// stored rows, for every read of them. Errors: EINVALID naming what
// does not decode.
func DecodeStoredEvent(body []byte) (Event, error) {
	e, err := decodeStored(body)
	if err != nil {
		return Event{}, Errorf(EINVALID, "the stored row does not decode: %v", err)
	}
	return e, nil
}

func decodeStored(body []byte) (Event, error) {
	var e Event
	if err := decodeStrict(body, &e); err != nil {
		return Event{}, errors.New(problemText(strictProblem(err)))
	}
	return e, nil
}

func problemText(p FieldError) string {
	if p.Field == "" {
		return p.Message
	}
	return fmt.Sprintf("%s: %s", p.Field, p.Message)
}
