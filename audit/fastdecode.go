package audit

import (
	"github.com/go-json-experiment/json/jsontext"
)

// fastDecode decodes the common shape of an event without reflection: one
// object whose keys are the fields of EventFields spelled exactly and
// without escapes, each once, with values of their kind (strings, the
// timestamp, true or false, raw values, the diff's changes). On anything
// else (an unknown or repeated key, a null where a string goes, a
// timestamp ParseTimestamp refuses, any doubt) it returns false and
// decodeStrict lets go-json-experiment/json decide, which also writes the
// error. When it returns true, e is exactly the event that library
// decodes (FuzzFastDecode holds it to that library). The library's decode
// was about 28% of the indexer's CPU (issue 53); side by side,
// DecodeEvent went from 8.0 to 5.2 µs an event (docs/design.md).
//
// Hand-written because no library does both: the fast JSON decoders
// (goccy, sonic) take duplicate keys and invalid UTF-8, which an audit
// log must refuse; go-json-experiment/json refuses them, through
// reflection.
func fastDecode(data []byte, e *Event) bool { return fastDecodeWith(newScanner(data), e) }

// fastDecodeWith is fastDecode with the scanner over the input.
func fastDecodeWith(s scanner, e *Event) bool {
	var seen uint64 // a bit per field and per nested object
	return s.members(func(key []byte) bool { return s.topMember(e, key, &seen) }) && s.end()
}

// topMember decodes the value of key at the top of the event.
func (s *scanner) topMember(e *Event, key []byte, seen *uint64) bool {
	if s.shape != nil {
		field, own, ok := s.shapedKey(key)
		switch {
		case !ok:
			return false
		case own:
			return s.ownMember(key)
		}
		key = field
	}
	f, ok := fastTop.find(key)
	if !ok || *seen&f.bit != 0 {
		return false
	}
	*seen |= f.bit
	if f.object != nil {
		return s.nested(e, f.object, seen)
	}
	return s.field(e, f.field)
}

// nested decodes the object of actor or resource: its fields by key.
func (s *scanner) nested(e *Event, fields *fastKeys, seen *uint64) bool {
	return s.members(func(key []byte) bool {
		f, ok := fields.find(key)
		if !ok || *seen&f.bit != 0 {
			return false
		}
		*seen |= f.bit
		return s.field(e, f.field)
	})
}

// field decodes one field's value by its kind.
func (s *scanner) field(e *Event, f *EventField) bool {
	switch f.Kind {
	case KindString:
		v, ok := s.stringValue()
		*f.str(e) = v
		return ok
	case KindTime:
		start, end, flags, ok := s.str()
		if !ok || flags != 0 {
			return false
		}
		t, err := ParseTimestamp(s.sub(start, end))
		e.Timestamp = t
		return err == nil
	case KindBool:
		return s.boolean(f.flag(e))
	case KindRaw:
		v, ok := s.rawValue()
		*f.raw(e) = v
		return ok
	case KindDiff:
		return s.diff(e)
	}
	return false
}

// diff decodes the diff: an object of changes, each {"from", "to"} with
// either or both left out; null is no diff.
func (s *scanner) diff(e *Event) bool {
	if s.literal("null") {
		return true
	}
	if s.peek() != '{' {
		return false
	}
	e.Diff = map[string]Change{}
	return s.members(func(key []byte) bool {
		name := s.sub(s.keyStart, s.keyStart+len(key))
		if _, dup := e.Diff[name]; dup {
			return false
		}
		c, ok := s.change()
		e.Diff[name] = c
		return ok
	})
}

// change decodes one change: {"from": raw, "to": raw}.
func (s *scanner) change() (Change, bool) {
	var c Change
	var from, to bool
	ok := s.members(func(key []byte) bool {
		var ok bool
		switch {
		case string(key) == "from" && !from:
			from = true
			c.From, ok = s.rawValue()
		case string(key) == "to" && !to:
			to = true
			c.To, ok = s.rawValue()
		}
		return ok
	})
	return c, ok
}

// fastField is a field, or a nested object's fields, and its bit in
// fastDecode's set of seen keys.
type fastField struct {
	key    string
	field  *EventField
	object *fastKeys
	bit    uint64
}

// fastKeys are the fields of one object by the length of their key: a
// lookup compares a key with the one or two of its length, cheaper than
// a map's hash.
type fastKeys [][]fastField

func (k fastKeys) find(key []byte) (fastField, bool) {
	if len(key) < len(k) {
		for _, f := range k[len(key)] {
			if f.key == string(key) {
				return f, true
			}
		}
	}
	return fastField{}, false
}

func (k *fastKeys) add(f fastField) {
	for len(*k) <= len(f.key) {
		*k = append(*k, nil)
	}
	(*k)[len(f.key)] = append((*k)[len(f.key)], f)
}

// The fields by key, at the top and in each nested object, from
// EventFields: a field added there is decoded here.
var fastTop = fastTables()

func fastTables() fastKeys {
	var top fastKeys
	objects := map[string]*fastKeys{}
	bit := uint64(1)
	for i := range EventFields {
		f := &EventFields[i]
		p := f.Parent()
		if p == "" {
			top.add(fastField{key: f.Key(), field: f, bit: bit})
			bit <<= 1
			continue
		}
		if objects[p] == nil {
			objects[p] = &fastKeys{}
			top.add(fastField{key: p, object: objects[p], bit: bit})
			bit <<= 1
		}
		objects[p].add(fastField{key: f.Key(), field: f, bit: bit})
		bit <<= 1
	}
	if bit == 0 {
		panic("audit: more than 64 event fields and objects for fastDecode's set")
	}
	return top
}

// validValue: v (an object or array, or a string with escapes) is valid
// JSON as the strict decoding takes it: no repeated key, valid UTF-8.
func validValue(v []byte) bool {
	return jsontext.Value(v).IsValid()
}
