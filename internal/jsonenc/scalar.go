package jsonenc

// MarshaledScalar reports whether raw is a JSON scalar that
// AppendMarshaled writes back byte for byte: true, false, null, a valid
// number, or a string of printable ASCII with no escape and none of <, >
// and &. Masking keeps such a value as it is instead of writing a copy:
// most changed values are one (issue 53, the indexer's CPU per event).
// Anything else, including any white space around it, says false, and
// the caller takes the general path.
func MarshaledScalar(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return plainString(raw)
	case c == '-' || '0' <= c && c <= '9':
		last := raw[len(raw)-1]
		return '0' <= last && last <= '9' && Valid(raw)
	}
	s := string(raw)
	return s == "true" || s == "false" || s == "null"
}

func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
