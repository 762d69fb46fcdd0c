// Package jsonenc writes JSON by hand where encoding/json would take
// several passes and allocations: strings escaped exactly as
// encoding/json escapes them, and raw JSON written again in canonical
// form (keys sorted, no white space) without decoding it into maps. The
// leaf encoding of the verifiable log (vlog.LeafData), the masking of
// values without secrets and the Elasticsearch documents use it; tests
// compare it byte for byte with encoding/json.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// AppendCanonical appends raw JSON (valid, as every stored event's raw
// values are) canonicalized: white space dropped, object keys sorted by
// their bytes (a repeated key keeps its last value, as decoding into a
// map does), strings written again as appendString writes them, numbers,
// true, false and null as they are. An empty raw value is null, as
// encoding/json writes a nil RawMessage.
func AppendCanonical(b []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	b, _ = canonValue(b, raw, skipSpace(raw, 0), false)
	return b
}

// AppendMarshaled appends valid raw JSON as encoding/json marshals it once
// decoded (numbers kept as written): AppendCanonical's form with <, > and
// & escaped, as json.Marshal escapes them.
func AppendMarshaled(b []byte, raw []byte) []byte {
	b, _ = canonValue(b, raw, skipSpace(raw, 0), true)
	return b
}

// canonValue appends the value at raw[i:] and returns the index after it.
func canonValue(b, raw []byte, i int, html bool) ([]byte, int) {
	switch raw[i] {
	case '{':
		return canonObject(b, raw, i, html)
	case '[':
		b = append(b, '[')
		i = skipSpace(raw, i+1)
		for n := 0; raw[i] != ']'; n++ {
			if n > 0 {
				b = append(b, ',')
			}
			b, i = canonValue(b, raw, i, html)
			if i = skipSpace(raw, i); raw[i] == ',' {
				i = skipSpace(raw, i+1)
			}
		}
		return append(b, ']'), i + 1
	case '"':
		s, end := stringBytes(raw, i)
		return appendJSONString(b, s, html), end
	}
	end := i
	for end < len(raw) && !isDelimiter(raw[end]) {
		end++
	}
	return append(b, raw[i:end]...), end
}

// member is one key of an object and the span of its value.
type member struct {
	key        []byte
	start, end int
}

// canonObject appends the object at raw[i:], its keys sorted.
func canonObject(b, raw []byte, i int, html bool) ([]byte, int) {
	var small [16]member // most objects' members, without a heap slice
	ms := small[:0]
	i = skipSpace(raw, i+1)
	for raw[i] != '}' {
		key, end := stringBytes(raw, i)
		start := skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		vend := skipValue(raw, start)
		ms = append(ms, member{key, start, vend})
		if i = skipSpace(raw, vend); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	slices.SortStableFunc(ms, func(x, y member) int { return bytes.Compare(x.key, y.key) })
	b = append(b, '{')
	n := 0
	for j, m := range ms {
		if j+1 < len(ms) && bytes.Equal(ms[j+1].key, m.key) {
			continue // a later value of the same key wins
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendJSONString(b, m.key, html)
		b = append(b, ':')
		b, _ = canonValue(b, raw, m.start, html)
	}
	return append(b, '}'), i + 1
}

// skipValue returns the index after the value at raw[i:].
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch raw[i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			case '"':
				_, end := stringEnd(raw, i)
				i = end - 1
			}
		}
	case '"':
		_, end := stringEnd(raw, i)
		return end
	}
	for i < len(raw) && !isDelimiter(raw[i]) {
		i++
	}
	return i
}

// HasKey reports whether any object inside valid raw JSON, at any depth,
// has a key for which pred holds.
func HasKey(raw []byte, pred func(string) bool) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		_, end := stringEnd(raw, i)
		if j := skipSpace(raw, end); j < len(raw) && raw[j] == ':' { // a key: only keys are decoded
			if s, _ := readString(raw, i); pred(s) {
				return true
			}
		}
		i = end - 1
	}
	return false
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// readString reads the JSON string at raw[i:] and returns its value and
// the index after it. A string of valid UTF-8 without escapes is its
// bytes; any other is unquoted by encoding/json (surrogates and invalid
// UTF-8 become U+FFFD, as decoding makes them).
func readString(raw []byte, i int) (string, int) {
	plain, j := stringEnd(raw, i)
	j-- // the closing quote
	if plain && utf8.Valid(raw[i+1:j]) {
		return string(raw[i+1 : j]), j + 1
	}
	var s string
	_ = json.Unmarshal(raw[i:j+1], &s)
	return s, j + 1
}

// stringBytes is readString's value as bytes: for a string of valid UTF-8
// without escapes, its bytes in raw (nothing copied).
func stringBytes(raw []byte, i int) ([]byte, int) {
	plain, j := stringEnd(raw, i)
	if plain && utf8.Valid(raw[i+1:j-1]) {
		return raw[i+1 : j-1], j
	}
	s, end := readString(raw, i)
	return []byte(s), end
}

// stringEnd returns whether the string at raw[i:] has no escape, and the
// index after its closing quote.
func stringEnd(raw []byte, i int) (bool, int) {
	j, plain := i+1, true
	for {
		// The next quote, found a word at a time: the string ends there
		// unless a backslash comes before it.
		q := j + bytes.IndexByte(raw[j:], '"')
		b := bytes.IndexByte(raw[j:q], '\\')
		if b < 0 {
			return plain, q + 1
		}
		plain = false
		j += b + 2 // past the backslash and the character it escapes
	}
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string as the canonical form writes it
// (encoding/json's escaping without HTML escaping).
func AppendString(b []byte, s string) []byte { return appendJSONString(b, s, false) }

// AppendField appends ,"name": (name a plain ASCII field name).
func AppendField(b []byte, name string) []byte {
	return append(append(append(b, `,"`...), name...), `":`...)
}

// AppendOptional appends ,"name":value unless value is empty (omitempty),
// the value escaped as AppendHTMLString (html) or AppendString does.
func AppendOptional(b []byte, name, value string, html bool) []byte {
	if value == "" {
		return b
	}
	return appendJSONString(AppendField(b, name), value, html)
}

// AppendHTMLString appends s exactly as json.Marshal writes it (<, > and
// & escaped).
func AppendHTMLString(b []byte, s string) []byte { return appendJSONString(b, s, true) }

// plainASCII and plainHTML are the bytes a JSON string holds as they
// are, without and with HTML escaping: ASCII but the control characters,
// " and \ (and <, > and &). One lookup a byte keeps appendJSONString's
// loop short; it was a tenth of the indexer's work per event.
var plainASCII, plainHTML = func() (a, h [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		a[c] = c != '"' && c != '\\'
		h[c] = a[c] && c != '<' && c != '>' && c != '&'
	}
	return a, h
}()

// appendJSONString appends s as a JSON string as encoding/json writes it,
// with HTML escaping (<, >, & as \u003c, \u003e, \u0026) or without: ", \ and control characters escaped (\n, \r, \t,
// \b, \f by name, the others as \u00XX), U+2028 and U+2029 as \u2028 and \u2029,
// and invalid UTF-8 as U+FFFD: the escape \ufffd with HTML escaping, as
// json.Marshal writes it; its bytes without, as the leaf's second encoding
// writes the \ufffd its first wrote.
func appendJSONString[S string | []byte](b []byte, s S, html bool) []byte {
	b = append(b, '"')
	plain := &plainASCII
	if html {
		plain = &plainHTML
	}
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1 && html:
			b = append(append(b, s[start:i]...), `\ufffd`...) // as json.Marshal writes it
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// decodeRune is utf8.DecodeRune of a string or bytes.
func decodeRune[S string | []byte](s S) (rune, int) {
	if b, ok := any(s).([]byte); ok {
		return utf8.DecodeRune(b)
	}
	return utf8.DecodeRuneInString(string(s))
}
