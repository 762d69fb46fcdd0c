package audit

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// scanner reads JSON for fastDecode. Each method says false on anything
// it does not take; fastDecode then gives the input to the strict
// decoder.
type scanner struct {
	b []byte
	// text is b as a string, copied once, when b is small: the decoded
	// strings are its parts (one allocation, not one each). A large
	// event's strings are copied each, so that a large before or after
	// does not keep a second copy of itself alive through them.
	text string
	// owned: b is the caller's to keep (ownedScanner), so raw values are
	// parts of it too, capped so that an append cannot write into it.
	owned bool
	i     int
	// keyStart is where the last key read starts in b.
	keyStart int
	// shape, when set, is the document's (DecodeDocument), and own the
	// keys of its own members read so far.
	shape *DocumentShape
	own   [][]byte
}

// shareUpTo is the largest input whose strings share one copy.
const shareUpTo = 2048

func newScanner(b []byte) scanner {
	s := scanner{b: b}
	if len(b) <= shareUpTo {
		s.text = string(b)
	}
	return s
}

// ownedScanner is newScanner over a b its caller hands over (never
// written again): a small input's strings are parts of b itself, not of
// a copy, and so are the raw values (before, after, a change's from and
// to) of any input. Retention is as with the copies: a string kept keeps
// the (small) input alive, a raw value its input (as large as it).
func ownedScanner(b []byte) scanner {
	s := scanner{b: b, owned: true}
	if len(b) > 0 && len(b) <= shareUpTo {
		s.text = unsafe.String(unsafe.SliceData(b), len(b))
	}
	return s
}

// sub returns b[start:end] as a string.
func (s *scanner) sub(start, end int) string {
	if s.text != "" {
		return s.text[start:end]
	}
	return string(s.b[start:end])
}

// space skips JSON white space.
func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end: nothing but white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

// peek returns the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return s.b[s.i] // compact JSON: no white space to skip
	}
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// next skips white space and c, when c comes next.
func (s *scanner) next(c byte) bool {
	if s.peek() == c && s.i < len(s.b) {
		s.i++
		return true
	}
	return false
}

// members reads an object, calling member for each key with the scanner
// at its value; member reads the value.
func (s *scanner) members(member func(key []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		key, ok := s.key()
		if !ok || !member(key) {
			return false
		}
		if s.next(',') {
			continue
		}
		return s.next('}')
	}
}

// key reads an object's key and its colon: a string without escapes, in
// valid UTF-8.
func (s *scanner) key() ([]byte, bool) {
	start, end, flags, ok := s.str()
	if !ok || flags&hasEscape != 0 || flags&hasMultiByte != 0 && !utf8.Valid(s.b[start:end]) || !s.next(':') {
		return nil, false
	}
	s.keyStart = start
	return s.b[start:end], true
}

// What str found in a string.
const (
	hasEscape    = 1 << iota // a backslash
	hasMultiByte             // a byte of a multi-byte UTF-8 sequence
)

// strClass marks the bytes str stops at: the quote, the backslash, the
// control characters and those of multi-byte sequences.
var strClass = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// specialWord reports whether one of the 8 bytes of w may be one str
// stops at (strClass): a quote, a backslash, a byte below 0x20 or above
// 0x7F. It may say yes for a word without one (the byte loop then
// decides), never no for a word with one.
func specialWord(w uint64) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((quote-ones)&^quote|(backslash-ones)&^backslash|(w-ones*0x20)|w)&high != 0
}

// str reads a string: where its bytes between the quotes start and end
// in b (escapes as written), and what they hold. False when no string
// comes next, or it holds a control character.
func (s *scanner) str() (start, end int, flags uint8, ok bool) {
	if !s.next('"') {
		return 0, 0, 0, false
	}
	b, i := s.b, s.i
	start = i
	for i < len(b) {
		if i+8 <= len(b) && !specialWord(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
			continue
		}
		c := b[i]
		if !strClass[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			return start, i, flags, true
		case c == '\\':
			flags |= hasEscape
			i += 2
		case c < 0x20:
			return 0, 0, 0, false
		default:
			flags |= hasMultiByte
			i++
		}
	}
	return 0, 0, 0, false
}

// stringValue reads a string value, its escapes decoded.
func (s *scanner) stringValue() (string, bool) {
	start, end, flags, ok := s.str()
	switch {
	case !ok:
		return "", false
	case flags == 0:
		return s.sub(start, end), true
	case flags == hasMultiByte:
		return s.sub(start, end), utf8.Valid(s.b[start:end])
	}
	out, err := jsontext.AppendUnquote(nil, s.b[start-1:end+1])
	return string(out), err == nil
}

// literal reads lit (true, false, null) when it comes next.
func (s *scanner) literal(lit string) bool {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		s.i += len(lit)
		return true
	}
	return false
}

// boolean reads true or false into p.
func (s *scanner) boolean(p *bool) bool {
	switch {
	case s.literal("true"):
		*p = true
	case s.literal("false"):
		*p = false
	default:
		return false
	}
	return true
}

// rawValue reads any JSON value and returns a copy of its bytes, as
// json.RawMessage keeps them.
func (s *scanner) rawValue() (json.RawMessage, bool) {
	s.space()
	start := s.i
	if !s.skipValue() {
		return nil, false
	}
	if s.owned {
		return json.RawMessage(s.b[start:s.i:s.i]), true
	}
	return append(json.RawMessage(nil), s.b[start:s.i]...), true
}

// skipValue reads past one JSON value, checking it: its structure and
// escapes by jsontext, the rest here.
func (s *scanner) skipValue() bool {
	start := s.i
	switch s.peek() {
	case '"':
		return s.skipString()
	case '[':
		if s.skipStrings() {
			return true // an array of strings (the common one), checked here
		}
		s.i = start
		return s.skipNested() && validValue(s.b[start:s.i])
	case '{':
		return s.skipNested() && validValue(s.b[start:s.i])
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// skipString reads past a string, checking it.
func (s *scanner) skipString() bool {
	s.space()
	start := s.i
	from, to, flags, ok := s.str()
	switch {
	case flags&hasEscape != 0:
		return ok && validValue(s.b[start:s.i])
	case flags != 0:
		return ok && utf8.Valid(s.b[from:to])
	}
	return ok
}

// skipStrings reads past an array of strings, checking it; false for
// any other value.
func (s *scanner) skipStrings() bool {
	if !s.next('[') {
		return false
	}
	if s.next(']') {
		return true
	}
	for {
		if s.peek() != '"' || !s.skipString() {
			return false
		}
		if s.next(',') {
			continue
		}
		return s.next(']')
	}
}

// skipNested reads past an object or array to its closing bracket.
func (s *scanner) skipNested() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if _, _, _, ok := s.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}

// number reads a JSON number (jsonenc.NumberEnd).
func (s *scanner) number() bool {
	if s.i >= len(s.b) {
		return false
	}
	i, ok := jsonenc.NumberEnd(s.b, s.i)
	s.i = i
	return ok
}
