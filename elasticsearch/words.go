package elasticsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
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
	add := func(s string) {
		if joins(s) {
			out = append(out, strings.Join(audit.Words(s), " "))
		}
	}
	for _, v := range e.TextValues() {
		add(v)
	}
	for _, v := range values {
		add(v)
	}
	return out
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
