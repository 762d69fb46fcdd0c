package jsonenc

// maxDepth is encoding/json's limit on nested arrays and objects, beyond
// which it calls a document invalid.
const maxDepth = 10000

// Valid reports whether raw is one JSON value with optional white space
// around it, exactly as encoding/json.Valid does (the same grammar, the
// same nesting limit, and, like it, any byte from 0x20 up inside strings,
// valid UTF-8 or not). Written by hand because encoding/json's scanner
// calls a function per byte: on the indexer's messages this is about four
// times faster, and validation was a fifth of the indexer's CPU per event
// (docs/indexer.md). FuzzValid holds it to encoding/json.
func Valid(raw []byte) bool {
	i, ok := validValue(raw, skipSpace(raw, 0), 0)
	return ok && skipSpace(raw, i) == len(raw)
}

// validValue checks the value at raw[i:] and returns the index after it.
func validValue(raw []byte, i, depth int) (int, bool) {
	if i >= len(raw) {
		return i, false
	}
	switch c := raw[i]; {
	case c == '"':
		return validString(raw, i)
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return i, false
		}
		return validContainer(raw, i, depth+1)
	case c == 't':
		return validLiteral(raw, i, "true")
	case c == 'f':
		return validLiteral(raw, i, "false")
	case c == 'n':
		return validLiteral(raw, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return NumberEnd(raw, i)
	}
	return i, false
}

// validContainer checks the object or array opening at raw[i]; an
// object's grammar is objectAt's.
func validContainer(raw []byte, i, depth int) (int, bool) {
	if raw[i] == '{' {
		return objectAt(raw, i, func(_ []byte, _ bool, v int) (int, bool) { return validValue(raw, v, depth) })
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == ']' {
		return i + 1, true
	}
	for {
		var ok, done bool
		if i, ok = validValue(raw, i, depth); !ok {
			return i, false
		}
		if i, done, ok = afterElement(raw, i, ']'); done || !ok {
			return i, ok
		}
	}
}

// objectAt walks the object that opens at raw[i] and checks its grammar
// as Valid does. For each member it calls fn with the key's bytes without
// quotes, whether the key holds an escape, and the index where the value
// starts (white space skipped); fn reads and checks the value and returns
// the index after it, or false to stop. objectAt returns the index after
// the closing brace, and false when the grammar is broken or fn stopped.
// The key is cut from raw with two-index slicing, so its capacity runs to
// the end of raw's.
func objectAt(raw []byte, i int, fn func(key []byte, escaped bool, v int) (int, bool)) (int, bool) {
	if i >= len(raw) || raw[i] != '{' {
		return i, false
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return i, false
		}
		end, plain, ok := StringAt(raw, i)
		if !ok {
			return end, false
		}
		key := raw[i+1 : end-1]
		if i = skipSpace(raw, end); i >= len(raw) || raw[i] != ':' {
			return i, false
		}
		v := skipSpace(raw, i+1)
		if v >= len(raw) {
			return v, false
		}
		if i, ok = fn(key, !plain, v); !ok {
			return i, false
		}
		var done bool
		if i, done, ok = afterElement(raw, i, '}'); done || !ok {
			return i, ok
		}
	}
}

// afterElement reads what follows an element or member ending at raw[i]:
// white space, then a comma (next is where the next one starts) or the
// closing end (done, next is after it).
func afterElement(raw []byte, i int, end byte) (next int, done, ok bool) {
	if i = skipSpace(raw, i); i >= len(raw) {
		return i, false, false
	}
	switch raw[i] {
	case ',':
		return skipSpace(raw, i+1), false, true
	case end:
		return i + 1, true, true
	}
	return i, false, false
}

// validString checks the string opening at raw[i]: no control character,
// and only JSON's escapes.
func validString(raw []byte, i int) (int, bool) {
	end, _, ok := StringAt(raw, i)
	return end, ok
}

// StringAt checks the string that opens at raw[i] (a quote) as Valid
// does, and returns the index after its closing quote and whether it
// holds no escape (its bytes are then its value, as Valid lets any byte
// from 0x20 up through: UTF-8 is the caller's to check).
func StringAt(raw []byte, i int) (end int, plain, ok bool) {
	plain = true
	for i++; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return i + 1, plain, true
		case c < 0x20:
			return i, false, false
		case c == '\\':
			plain = false
			if i++; i >= len(raw) {
				return i, false, false
			}
			switch raw[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(raw) {
					return len(raw), false, false // the bytes end inside the escape
				}
				if !isHex(raw[i+1]) || !isHex(raw[i+2]) || !isHex(raw[i+3]) || !isHex(raw[i+4]) {
					return i, false, false
				}
				i += 4
			default:
				return i, false, false
			}
		}
	}
	return i, false, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// NumberEnd checks the number at raw[i:] (i < len(raw)) against
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and returns where it
// ends, and whether it is one.
func NumberEnd(raw []byte, i int) (int, bool) {
	if raw[i] == '-' {
		i++
	}
	switch {
	case i < len(raw) && raw[i] == '0':
		i++
	case i < len(raw) && raw[i] >= '1' && raw[i] <= '9':
		i = digits(raw, i)
	default:
		return i, false
	}
	if i < len(raw) && raw[i] == '.' {
		j := digits(raw, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		j := digits(raw, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(raw []byte, i int) int {
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	return i
}

func validLiteral(raw []byte, i int, lit string) (int, bool) {
	if len(raw)-i < len(lit) {
		if string(raw[i:]) == lit[:len(raw)-i] {
			return len(raw), false // the bytes end inside the literal
		}
		return i, false
	}
	if string(raw[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// ValueEnd returns the index just after the JSON value that starts at
// raw[i:] (after white space), and false when no valid value starts there
// or the bytes end inside it. When they end inside it, the index returned
// is len(raw): a reader of a bounded prefix of a larger document tells a
// cut value from a broken one.
func ValueEnd(raw []byte, i int) (int, bool) {
	return validValue(raw, skipSpace(raw, i), 0)
}

// SkipSpace returns the index of the first byte at or after i that is
// not JSON white space.
func SkipSpace(raw []byte, i int) int { return skipSpace(raw, i) }
