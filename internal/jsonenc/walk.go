package jsonenc

// A walk that checks the grammar as it reads, for a decoder that would
// otherwise validate a document (Valid) and then walk it again: the
// indexer's one-pass decoder (audit/onepass.go), where Valid was a tenth
// of the CPU per event. Every function here checks exactly what Valid
// checks of the bytes it reads; FuzzObjectAt holds them to
// encoding/json.Valid.

// ObjectAt walks the object that opens at raw[i] and checks its grammar
// as Valid does. For each member it calls fn with the key's bytes without
// quotes, whether the key holds an escape, and the index where the value
// starts (white space skipped); fn reads and checks the value and returns
// the index after it, or false to stop. ObjectAt returns the index after
// the closing brace, and false when the grammar is broken or fn stopped.
// The key is cut from raw with two-index slicing, so its capacity runs to
// the end of raw's.
func ObjectAt(raw []byte, i int, fn func(key []byte, escaped bool, v int) (int, bool)) (int, bool) {
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

// ValueAt checks the value that starts at raw[i] as Valid does when
// depth arrays and objects enclose it (Valid's limit on nesting counts
// them), and returns the index after it.
func ValueAt(raw []byte, i, depth int) (int, bool) { return validValue(raw, i, depth) }

// BoolAt reads the literal true or false at raw[i] and returns its value
// and the index after it; false when neither starts there.
func BoolAt(raw []byte, i int) (value bool, end int, ok bool) {
	if end, ok = validLiteral(raw, i, "true"); ok {
		return true, end, true
	}
	end, ok = validLiteral(raw, i, "false")
	return false, end, ok
}
