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
// Every string field without an escape is a substring of one copy of the
// message, and every raw value (before, after, a change's from and to) a
// slice of a copy of its tail, from the first raw value on: two
// allocations instead of one per field.
type onePass struct {
	data []byte // the message: valid JSON (jsonenc.Valid) and valid UTF-8
	text string // data as a string, made at the first string
	// raw is a copy of data from rawFrom, the first raw value, on.
	raw     []byte
	rawFrom int
}

// decodeOnePass fills e from data and reports whether it could; when it
// could not, e holds a partial decoding that the caller discards.
func decodeOnePass(data []byte, e *Event) bool {
	d := onePass{data: data}
	return d.event(e)
}

// offset is where v, a slice of d.data, starts in it. Every slice the
// decoder sees is cut from d.data with two-index slicing (jsonenc.Members),
// which keeps the distance to the end of the backing array.
func (d *onePass) offset(v []byte) int { return cap(d.data) - cap(v) }

// key is a member's key as a string, or false when it holds an escape.
func (d *onePass) key(k []byte, escaped bool) (string, bool) {
	if escaped {
		return "", false
	}
	if d.text == "" {
		d.text = string(d.data)
	}
	off := d.offset(k)
	return d.text[off : off+len(k)], true
}

// str is a string value without its quotes, or false when v is no
// string. A string with an escape (a tenth of the benchmark's events: a
// user agent holding quotes) is unquoted on its own.
func (d *onePass) str(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v[1:len(v)-1], '\\') >= 0 {
		var s string
		return s, json.Unmarshal(v, &s) == nil
	}
	return d.key(v[1:len(v)-1], false)
}

// rawValue is v as json.RawMessage holds it (a JSON null is the bytes
// null, as goccy leaves it), capped so that appending to it copies.
func (d *onePass) rawValue(v []byte) json.RawMessage {
	off := d.offset(v)
	if d.raw == nil {
		// The walk goes forward: every later raw value lies after this one.
		d.rawFrom, d.raw = off, bytes.Clone(d.data[off:])
	}
	off -= d.rawFrom
	return d.raw[off : off+len(v) : off+len(v)]
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

// members walks the object v, whose keys must each name one of keys,
// once: set is called with the field's index and the value.
func (d *onePass) members(v []byte, keys []string, set func(i int, v []byte) bool) bool {
	if !isObject(v) {
		return false
	}
	var seen uint64
	return jsonenc.Members(v, func(k []byte, escaped bool, val []byte) bool {
		i := -1
		if !escaped {
			i = fieldIndex(k, keys)
		}
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		return set(i, val)
	})
}

// setString stores the string value v in *p.
func (d *onePass) setString(p *string, v []byte) bool {
	s, ok := d.str(v)
	*p = s
	return ok
}

func (d *onePass) event(e *Event) bool {
	return d.members(d.data, eventKeys, func(i int, v []byte) bool {
		switch eventKeys[i] {
		case "timestamp":
			return e.Timestamp.UnmarshalJSON(v) == nil
		case "actor":
			a := &e.Actor
			return d.members(v, actorKeys, func(i int, v []byte) bool {
				return d.setString([]*string{&a.ID, &a.Email, &a.Role, &a.IP, &a.UserAgent}[i], v)
			})
		case "resource":
			r := &e.Resource
			return d.members(v, resourceKeys, func(i int, v []byte) bool { return d.setString([]*string{&r.Type, &r.ID}[i], v) })
		case "diff":
			return d.diff(v, e)
		case "crossTenant":
			e.CrossTenant = string(v) == "true"
			return e.CrossTenant || string(v) == "false"
		case "before":
			e.Before = d.rawValue(v)
		case "after":
			e.After = d.rawValue(v)
		default:
			return d.setString(eventString(e, eventKeys[i]), v)
		}
		return true
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
func (d *onePass) diff(v []byte, e *Event) bool {
	if !isObject(v) {
		return false
	}
	e.Diff = map[string]Change{}
	return jsonenc.Members(v, func(k []byte, escaped bool, cv []byte) bool {
		name, ok := d.key(k, escaped)
		if !ok {
			return false
		}
		if _, dup := e.Diff[name]; dup {
			return false
		}
		var c Change
		ok = d.members(cv, changeKeys, func(i int, v []byte) bool {
			*[]*json.RawMessage{&c.From, &c.To}[i] = d.rawValue(v)
			return true
		})
		e.Diff[name] = c
		return ok
	})
}
