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

// AppendJSON appends the event's JSON (MarshalJSON) to b.
func (e *Event) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = jsonenc.AppendHTMLString(b, e.ID)
	b = append(b, `,"timestamp":"`...)
	b = e.Timestamp.UTC().AppendFormat(b, TimestampLayout)
	b = append(b, `","tenantId":`...)
	b = jsonenc.AppendHTMLString(b, e.TenantID)
	b = append(b, `,"actor":{"id":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.ID)
	b = append(b, `,"email":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.Email)
	b = append(b, `,"role":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.Role)
	b = append(b, `,"ip":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.IP)
	b = append(b, `,"userAgent":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.UserAgent)
	b = append(b, `},"action":`...)
	b = jsonenc.AppendHTMLString(b, string(e.Action))
	b = append(b, `,"resource":{"type":`...)
	b = jsonenc.AppendHTMLString(b, e.Resource.Type)
	b = append(b, `,"id":`...)
	b = jsonenc.AppendHTMLString(b, e.Resource.ID)
	b = append(b, `},"diff":{`...)
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
	b = append(b, `},"crossTenant":`...)
	b = strconv.AppendBool(b, e.CrossTenant)
	b = jsonenc.AppendOptional(b, "category", string(e.Category), true)
	b = jsonenc.AppendOptional(b, "outcome", string(e.Outcome), true)
	b = jsonenc.AppendOptional(b, "reason", e.Reason, true)
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"before", e.Before}, {"after", e.After}} {
		if len(f.raw) > 0 {
			if b, err = appendRawJSON(jsonenc.AppendField(b, f.name), f.raw); err != nil {
				return nil, err
			}
		}
	}
	b = jsonenc.AppendOptional(b, "requestId", e.RequestID, true)
	b = jsonenc.AppendOptional(b, "restoredFrom", e.RestoredFrom, true)
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
