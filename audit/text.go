package audit

import (
	"strings"
	"unicode/utf8"
)

// Control characters. An event's string fields and every query parameter
// are text that is shown to people, written to CSV and logs, and stored
// in two backends: they must be valid UTF-8 without any C0 control
// character (U+0000–U+001F) or DEL (U+007F). Inside the free JSON of
// before, after and diff values, tab, line feed and carriage return are
// allowed (an IVR prompt may hold a line break); every other control
// character, NUL above all, is refused there too. docs/event.md "Event limits"
// documents the rule.

// CleanText reports whether s is valid UTF-8 with no control character.
func CleanText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// cleanJSON reports whether the JSON text raw (already known to be valid
// JSON) holds no escaped control character other than \t, \n and \r. It
// scans the escapes rather than decoding, so a large before/after state
// costs one pass and no allocation.
func cleanJSON(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			inString = !inString
		case inString && c == '\\' && i+1 < len(raw):
			i++
			if raw[i] != 'u' || i+4 >= len(raw) {
				continue
			}
			// \u00XY with XY < 0x20 or 0x7f is a control character.
			if raw[i+1] == '0' && raw[i+2] == '0' {
				hi, lo := hexVal(raw[i+3]), hexVal(raw[i+4])
				v := hi<<4 | lo
				if hi >= 0 && lo >= 0 && (v < 0x20 && v != '\t' && v != '\n' && v != '\r' || v == 0x7f) {
					return false
				}
			}
			i += 4
		}
	}
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -64
}

// RecordableReason reports whether s can be an event's reason: at most
// MaxReasonBytes of text without control characters (a declared reason
// of an operator access, from a token claim or a header).
func RecordableReason(s string) bool {
	return len(s) <= MaxReasonBytes && CleanText(s)
}

// ValidEmail reports whether s is a bare e-mail address (local@domain.tld,
// no display name, no spaces or angle brackets, no control character) of
// at most MaxEmailBytes bytes: what actor.email must be.
func ValidEmail(s string) bool {
	return validEmail(s) && CleanText(s)
}

// SanitizeText makes client-supplied text recordable: each control
// character and each byte that is not valid UTF-8 becomes U+FFFD, and the
// result is cut at a rune boundary to at most max bytes. The service uses
// it for what it records of its own callers (a User-Agent header may
// carry a tab or Latin-1 bytes), so a hostile header can neither break
// the record nor be refused into a 500.
func SanitizeText(s string, max int) string {
	if CleanText(s) && len(s) <= max {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			r = utf8.RuneError
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r) // an invalid byte arrives here as RuneError already
	}
	return b.String()
}

// toLower is strings.ToLower(s), without its work per byte when s holds
// no upper-case letter and no byte beyond ASCII: every id the service
// mints and nearly every id a producer sends. Normalize lowers five ids of
// every event, and strings.ToLower was a tenth of decoding one
// (docs/indexer.md, "CPU per event").
func toLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c-'A' < 26 || c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
	}
	return s
}
