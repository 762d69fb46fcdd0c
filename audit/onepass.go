package audit

import (
	"bytes"
	"encoding/json"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// onePass decodes an event in one walk over its members, for the shape
// nearly every producer writes: each key once, spelled as a field's name
// up to ASCII case, without escapes; no null outside the raw values. It
// is the first of DecodeEvent's decoders because goccy's Unmarshal, the
// key check before it and the copies of every string were most of the
// indexer's work per event (docs/indexer.md, "CPU per event"). Any other
// input is declined, never guessed at: the next decoder takes it, and
// FuzzOnePass holds what this one accepts to what goccy's strict decoder
// gives.
//
// The walk checks JSON's grammar as it reads (jsonenc.ObjectAt, held to
// encoding/json.Valid by fuzzing), so an event it takes is read once, not
// validated first and walked after; UTF-8 is the caller's to check.
//
// Every string field without an escape is a substring of one copy of the
// message, and every raw value (before, after, a change's from and to) a
// slice of a copy of its tail, from the first raw value on: two
// allocations instead of one per field.
type onePass struct {
	data []byte // the message, valid UTF-8
	text string // data as a string, made at the first string
	// raw is a copy of data from rawFrom, the first raw value, on.
	raw     []byte
	rawFrom int
}

// decodeOnePass fills e from data and reports whether it could; when it
// could not (data is not JSON, or not in the shape above), e holds a
// partial decoding that the caller discards.
func decodeOnePass(data []byte, e *Event) bool {
	d := onePass{data: data}
	end, ok := d.event(jsonenc.SkipSpace(data, 0), e)
	return ok && jsonenc.SkipSpace(data, end) == len(data)
}

// sub is data[from:to] as a string cut from the one copy.
func (d *onePass) sub(from, to int) string {
	if d.text == "" {
		d.text = string(d.data)
	}
	return d.text[from:to]
}

// key is a member's key, cut from data by jsonenc.ObjectAt, as a string,
// or false when it holds an escape.
func (d *onePass) key(k []byte, escaped bool) (string, bool) {
	if escaped {
		return "", false
	}
	off := cap(d.data) - cap(k) // k's capacity runs to the end of data's
	return d.sub(off, off+len(k)), true
}

// str reads the string value at v and returns it and its end, or false
// when no string starts there. A string with an escape (a tenth of the
// benchmark's events: a user agent holding quotes) is unquoted on its
// own.
func (d *onePass) str(v int) (string, int, bool) {
	if d.data[v] != '"' {
		return "", v, false
	}
	end, plain, ok := jsonenc.StringAt(d.data, v)
	switch {
	case !ok:
		return "", end, false
	case !plain:
		var s string
		return s, end, json.Unmarshal(d.data[v:end], &s) == nil
	}
	return d.sub(v+1, end-1), end, true
}

// rawValue reads the value at v, depth arrays and objects deep, as
// json.RawMessage holds it (a JSON null is the bytes null, as goccy
// leaves it), capped so that appending to it copies.
func (d *onePass) rawValue(p *json.RawMessage, v, depth int) (int, bool) {
	end, ok := jsonenc.ValueAt(d.data, v, depth)
	if !ok {
		return end, false
	}
	if d.raw == nil {
		// The walk goes forward: every later raw value lies after this one.
		d.rawFrom, d.raw = v, bytes.Clone(d.data[v:])
	}
	from, to := v-d.rawFrom, end-d.rawFrom
	*p = d.raw[from:to:to]
	return end, true
}

// fieldIndex is the index in keys of the field k names up to ASCII case,
// or -1.
func fieldIndex(k []byte, keys []string) int {
	for i, name := range keys {
		if len(name) == len(k) && asciiFold(k, name) {
			return i
		}
	}
	return -1
}

// members walks the object at v, whose keys must each name one of keys,
// once: set is called with the field's index and where its value starts,
// and returns where it ends.
func (d *onePass) members(v int, keys []string, set func(i, v int) (int, bool)) (int, bool) {
	var seen uint64
	return jsonenc.ObjectAt(d.data, v, func(k []byte, escaped bool, v int) (int, bool) {
		i := -1
		if !escaped {
			i = fieldIndex(k, keys)
		}
		if i < 0 || seen&(1<<i) != 0 {
			return v, false
		}
		seen |= 1 << i
		return set(i, v)
	})
}

// setString stores the string value at v in *p.
func (d *onePass) setString(p *string, v int) (int, bool) {
	s, end, ok := d.str(v)
	*p = s
	return end, ok
}

// The depth of the values a raw value can be, for Valid's nesting limit:
// a member of the event, and a change's from or to (event, diff, change).
const memberDepth, changeDepth = 1, 3

func (d *onePass) event(i int, e *Event) (int, bool) {
	return d.members(i, eventKeys, func(i, v int) (int, bool) {
		switch eventKeys[i] {
		case "timestamp":
			end, ok := jsonenc.ValueAt(d.data, v, memberDepth)
			return end, ok && e.Timestamp.UnmarshalJSON(d.data[v:end]) == nil
		case "actor":
			a := &e.Actor
			return d.members(v, actorKeys, func(i, v int) (int, bool) {
				return d.setString([]*string{&a.ID, &a.Email, &a.Role, &a.IP, &a.UserAgent}[i], v)
			})
		case "resource":
			r := &e.Resource
			return d.members(v, resourceKeys, func(i, v int) (int, bool) { return d.setString([]*string{&r.Type, &r.ID}[i], v) })
		case "diff":
			return d.diff(v, e)
		case "crossTenant":
			var end int
			var ok bool
			e.CrossTenant, end, ok = jsonenc.BoolAt(d.data, v)
			return end, ok
		case "before":
			return d.rawValue(&e.Before, v, memberDepth)
		case "after":
			return d.rawValue(&e.After, v, memberDepth)
		}
		return d.setString(eventString(e, eventKeys[i]), v)
	})
}

// eventString is the string field of e with the JSON name.
func eventString(e *Event, name string) *string {
	switch name {
	case "id":
		return &e.ID
	case "tenantId":
		return &e.TenantID
	case "action":
		return (*string)(&e.Action)
	case "category":
		return (*string)(&e.Category)
	case "outcome":
		return (*string)(&e.Outcome)
	case "reason":
		return &e.Reason
	case "requestId":
		return &e.RequestID
	}
	return &e.RestoredFrom
}

// diff decodes the changes; a field named twice is declined.
func (d *onePass) diff(v int, e *Event) (int, bool) {
	e.Diff = map[string]Change{}
	return jsonenc.ObjectAt(d.data, v, func(k []byte, escaped bool, cv int) (int, bool) {
		name, ok := d.key(k, escaped)
		if !ok {
			return cv, false
		}
		if _, dup := e.Diff[name]; dup {
			return cv, false
		}
		var c Change
		end, ok := d.members(cv, changeKeys, func(i, v int) (int, bool) {
			return d.rawValue([]*json.RawMessage{&c.From, &c.To}[i], v, changeDepth)
		})
		e.Diff[name] = c
		return end, ok
	})
}
