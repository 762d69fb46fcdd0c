package audit

// DocumentShape is how a store's document of an event differs from the
// event's JSON: the timestamp under another key, and members of the
// store's own beside the event's fields (Elasticsearch's @timestamp, its
// word and value fields and the acceptance tag).
type DocumentShape struct {
	// TimestampKey is the timestamp's key; "timestamp" is then not one.
	TimestampKey string
	// Member reads a member that is not the event's, given its key and
	// its raw value (valid JSON, its bytes still the document's: copy
	// what is kept). False: not the common shape (DecodeDocument then
	// says false). Each key comes at most once.
	Member func(key string, raw []byte) bool
}

// DecodeDocument decodes the event in a document of shape by the fast
// path of the strict decode: true when the document is of the common
// shape (the event's fields as fastDecode takes them, the shape's own
// members as Member takes them), and then e is what
// go-json-experiment/json with the strict options decodes into the same
// fields. False on anything else: the store then decodes the document
// with that library, which also names what is wrong.
func DecodeDocument(src []byte, shape *DocumentShape, e *Event) bool {
	s := newScanner(src)
	var own [8][]byte
	s.shape, s.own = shape, own[:0]
	var seen uint64
	return s.members(func(key []byte) bool { return s.topMember(e, key, &seen) }) && s.end()
}

// timestampField is the timestamp's key in the event's JSON (read only).
var timestampField = []byte("timestamp")

// shapedKey maps a key of a shaped document to the event's field it is,
// or says it is the shape's own (own true), or refused (ok false).
func (s *scanner) shapedKey(key []byte) (field []byte, own, ok bool) {
	if k := s.shape.TimestampKey; k != "" {
		switch string(key) {
		case k:
			return timestampField, false, true
		case "timestamp":
			return nil, false, false
		}
	}
	if _, found := fastTop.find(key); found {
		return key, false, true
	}
	return nil, true, true
}

// ownMember reads a member of the shape's own: its value checked as
// valid JSON, given to Member; a key given twice is refused.
func (s *scanner) ownMember(key []byte) bool {
	for _, k := range s.own {
		if string(k) == string(key) {
			return false
		}
	}
	s.own = append(s.own, key)
	name := s.sub(s.keyStart, s.keyStart+len(key))
	s.space()
	start := s.i
	return s.skipValue() && s.shape.Member(name, s.b[start:s.i])
}

// DecodeStrings reads a JSON array of strings, or null (nil), as
// go-json-experiment/json decodes it into a []string: for a
// DocumentShape's Member. False on anything else.
func DecodeStrings(raw []byte) ([]string, bool) {
	s := newScanner(raw)
	if s.literal("null") {
		return nil, s.end()
	}
	if !s.next('[') {
		return nil, false
	}
	out := []string{}
	if s.next(']') {
		return out, s.end()
	}
	for {
		v, ok := s.stringValue()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if s.next(',') {
			continue
		}
		return out, s.next(']') && s.end()
	}
}

// DecodeString reads a JSON string as a DocumentShape's Member would.
func DecodeString(raw []byte) (string, bool) {
	s := newScanner(raw)
	v, ok := s.stringValue()
	return v, ok && s.end()
}

// IsStrings reports whether raw is what DecodeStrings takes (a JSON array
// of strings, or null), without making the strings: for a reader that
// checks a member it does not keep.
func IsStrings(raw []byte) bool {
	s := scanner{b: raw}
	if s.literal("null") {
		return s.end()
	}
	return s.skipStrings() && s.end()
}
