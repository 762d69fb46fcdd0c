package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// MarshalJSON writes the event exactly as encoding/json writes the struct
// (fields in their order, empty optional ones left out, strings and raw
// values HTML-escaped), with diff as {} rather than null when it is
// empty, so the wire shape always has every spec field. Written by hand:
// reflection was a fifth of a default page's CPU in the API. Errors: a
// raw value (diff, before, after) that is not valid JSON.
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(make([]byte, 0, 1024))
}

// AppendJSON appends the event's JSON (MarshalJSON) to b: the fields of
// EventFields in their order.
func (e *Event) AppendJSON(b []byte) ([]byte, error) { return e.appendJSON(b, false) }

// AppendStoredJSON appends the event as a store keeps it (SQLite's body):
// AppendJSON's form with an empty diff left out, which decodes to the same
// event (DecodeStoredEvent gives no diff for none written, and an empty
// one for {}).
func (e *Event) AppendStoredJSON(b []byte) ([]byte, error) { return e.appendJSON(b, true) }

func (e *Event) appendJSON(b []byte, stored bool) ([]byte, error) {
	b = append(b, '{')
	var m Members
	var err error
	for i := range EventFields {
		f := &EventFields[i]
		if f.Optional && f.IsEmpty(e) || stored && f.Kind == KindDiff && len(e.Diff) == 0 {
			continue
		}
		b = m.Next(b, f)
		switch f.Kind {
		case KindString:
			b = jsonenc.AppendHTMLString(b, f.String(e))
		case KindTime:
			b = append(e.Timestamp.AppendTo(append(b, '"')), '"')
		case KindBool:
			b = strconv.AppendBool(b, f.Bool(e))
		case KindRaw:
			b, err = appendRawJSON(b, f.Raw(e))
		case KindDiff:
			b, err = e.appendDiffJSON(b)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(m.Close(b), '}'), nil
}

// appendDiffJSON appends the diff as an object with sorted field names:
// {} when it is empty.
func (e *Event) appendDiffJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i, k := range sortedKeys(e.Diff) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendHTMLString(b, k)
		if b, err = appendRawJSON(append(b, `:{"from":`...), e.Diff[k].From); err != nil {
			return nil, err
		}
		if b, err = appendRawJSON(append(b, `,"to":`...), e.Diff[k].To); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendRawJSON appends a raw value as encoding/json writes a
// RawMessage: null when nil, else compacted with <, >, &, U+2028 and
// U+2029 escaped. A value already so written (as stored values are) is
// copied as it is.
func appendRawJSON(b []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(b, "null"...), nil
	}
	if !jsonenc.Valid(raw) {
		return nil, fmt.Errorf("json: invalid raw value %.40q", raw)
	}
	if !needsCompaction(raw) {
		return append(b, raw...), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	var esc bytes.Buffer
	json.HTMLEscape(&esc, buf.Bytes())
	return append(b, esc.Bytes()...), nil
}

// needsCompaction: raw holds white space outside its strings, or a
// character json.Marshal escapes (<, >, &, U+2028, U+2029) anywhere.
func needsCompaction(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++ // the escaped character
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return true
		case c == '<' || c == '>' || c == '&':
			return true
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			return true
		}
	}
	return false
}
