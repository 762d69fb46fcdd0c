package elasticsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// Free text on both stores splits words as audit.Words does. The
// standard analyzer of the search field keeps some runs whole that the
// embedded store splits: at a dot, colon, apostrophe, comma or semicolon
// between letters or digits (Unicode's word boundaries, UAX #29), so
// "hooks.zendesk-relay.example" is the tokens "hooks.zendesk" and
// "relay.example" and the word zendesk is not in it. For each searchable
// text of an event that holds such a join, the document carries the text
// split (words, copied into search), so that both stores find the same
// events. The standard analyzer is kept rather than replaced: the test
// cluster, like any cluster without the analysis-common module, has no
// other tokenizer to split with, and documents written before mapping
// version 4 are found through it as they always were.

// joinedWords returns the searchable texts of e (its audit.TextFields and
// values, its SearchValues) that the standard analyzer
// joins, each as its words separated by spaces.
func joinedWords(e *audit.Event, values []string) []string {
	var out []string
	eachJoined(e, values, func(s string) { out = append(out, strings.Join(audit.Words(s), " ")) })
	return out
}

// appendJoinedWords appends the member "words", joinedWords as a JSON
// array, when there is any, without building its strings (they were most
// of a document's allocations: a user agent or an e-mail nearly always
// joins). A word's runes are letters, digits and underscores, which JSON
// writes as they are.
func appendJoinedWords(b []byte, e *audit.Event, values []string) []byte {
	n := 0
	eachJoined(e, values, func(s string) {
		if n == 0 {
			b = append(jsonenc.AppendField(b, "words"), '[')
		} else {
			b = append(b, ',')
		}
		n++
		b = append(b, '"')
		inWord, words := false, 0
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			w := audit.IsWordRune(r)
			if w && !inWord {
				if words > 0 {
					b = append(b, ' ')
				}
				words++
			}
			if w {
				b = append(b, s[i:i+size]...)
			}
			inWord, i = w, i+size
		}
		b = append(b, '"')
	})
	if n > 0 {
		b = append(b, ']')
	}
	return b
}

// eachJoined calls f with each searchable text of e that the standard
// analyzer joins.
func eachJoined(e *audit.Event, values []string, f func(string)) {
	var texts [8]string
	for _, v := range e.AppendTextValues(texts[:0]) {
		if joins(v) {
			f(v)
		}
	}
	for _, v := range values {
		if joins(v) {
			f(v)
		}
	}
}

// joins reports whether s holds a dot, colon, apostrophe, comma or
// semicolon between two letters or digits.
func joins(s string) bool {
	prev := rune(0)
	for i, r := range s {
		if !strings.ContainsRune(".:'’,;·", r) || !alnum(prev) {
			prev = r
			continue
		}
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		if alnum(next) {
			return true
		}
		prev = r
	}
	return false
}

func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
