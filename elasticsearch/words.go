package elasticsearch

import (
	"github.com/auditlog/auditlog/audit/search"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// Free text on both stores splits words as search.Words does. The
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
	eachJoined(e, values, func(s string) { out = append(out, strings.Join(search.Words(s), " ")) })
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
			k, size := classAt(s, i)
			w := k&classWord != 0
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
	prevAlnum := false
	for i := 0; i < len(s); {
		k, size := classAt(s, i)
		if prevAlnum && k&classJoin != 0 && i+size < len(s) {
			if next, _ := classAt(s, i+size); next&classAlnum != 0 {
				return true
			}
		}
		prevAlnum, i = k&classAlnum != 0, i+size
	}
	return false
}

// The classes of a rune of free text. Every event's texts are read rune
// by rune twice (whether they join, then their words); an ASCII byte,
// nearly all of them, is looked up in a table made from the same
// functions, and only other runes are decoded and classified: the
// unicode tables' calls were half of a document's encoding.
const (
	classWord  = 1 << iota // a rune of a word (search.IsWordRune)
	classAlnum             // a letter or a digit
	classJoin              // a rune the standard analyzer keeps between letters or digits
)

const joiners = ".:'’,;·"

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		t[c] = runeClass(rune(c))
	}
	return t
}()

func runeClass(r rune) uint8 {
	var k uint8
	if search.IsWordRune(r) {
		k |= classWord
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		k |= classAlnum
	}
	if strings.ContainsRune(joiners, r) {
		k |= classJoin
	}
	return k
}

// classAt returns the class of the rune at s[i], and its size.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), size
}
