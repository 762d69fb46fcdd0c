package search

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/auditlog/auditlog/audit"
)

// The word model of free text (issue 56), one definition for both
// stores: each store indexes what AppendFolded makes of an event's texts
// and matches what it makes of the words searched, so the stores' own
// analysis never decides what a word is (the embedded store's FTS5
// tokenizer and Elasticsearch's whitespace analyzer only split at the
// spaces it writes).
//
//   - A word is a run of letters, digits (Unicode categories L and Nd)
//     and underscores; every other character separates words.
//   - Words are lower-cased and their accents removed: each character is
//     decomposed (NFKD, which also turns ligatures, full-width forms and
//     superscripts into their plain letters and digits), its combining
//     marks dropped, and the letters that do not decompose are spelled as
//     in ASCII (ß ss, æ ae, œ oe, ø o, ł l, đ d, ð d, þ th, ı i). So
//     "José" is "jose" and "Préférence" "preference".
//   - A word is at most MaxWordUnits UTF-16 code units (Elasticsearch's
//     token limit); a longer run is several words, cut after each 255.
//   - A phrase is words next to each other in one value: one field of the
//     event, or one value of its diff. It never spans two of them.

// MaxWordUnits is the longest word, in UTF-16 code units.
const MaxWordUnits = 255

// AppendFolded appends the words of s, folded, separated by single
// spaces, to b; the first without a space before it.
func AppendFolded(b []byte, s string) []byte {
	start, units := len(b), 0 // units: of the current word; 0 between words
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				units = 0
				continue
			}
			// appendWordRune of an ASCII byte, written out: it was a
			// call a byte of every event's text (issue 58).
			if units == 0 && len(b) > start {
				b = append(b, ' ')
			}
			b = append(b, c)
			if units++; units >= MaxWordUnits {
				units = 0
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		b, units = appendFoldedRune(b, start, units, r)
	}
	return b
}

// appendFoldedRune appends what r, not ASCII, folds to.
func appendFoldedRune(b []byte, start, units int, r rune) ([]byte, int) {
	var buf [4 * utf8.UTFMax]byte
	var one [utf8.UTFMax]byte
	d := norm.NFKD.Append(buf[:0], one[:utf8.EncodeRune(one[:], r)]...)
	for len(d) > 0 {
		x, size := utf8.DecodeRune(d)
		d = d[size:]
		if unicode.Is(unicode.Mn, x) {
			continue
		}
		x = unicode.ToLower(x)
		if spelled, ok := asciiSpelling[x]; ok {
			for _, c := range spelled {
				b, units = appendWordRune(b, start, units, c)
			}
			continue
		}
		if !IsWordRune(x) {
			units = 0
			continue
		}
		b, units = appendWordRune(b, start, units, x)
	}
	return b, units
}

// asciiSpelling spells the lower-case letters that do not decompose.
var asciiSpelling = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i",
}

// appendWordRune appends r, a rune of a word, starting a word (after a
// space, unless it is the first) when units is 0, and ending it after
// MaxWordUnits.
func appendWordRune(b []byte, start, units int, r rune) ([]byte, int) {
	if units == 0 && len(b) > start {
		b = append(b, ' ')
	}
	b = utf8.AppendRune(b, r)
	if units += utf16.RuneLen(r); units >= MaxWordUnits {
		units = 0
	}
	return b, units
}

// Fold returns the words of s, folded, separated by single spaces.
func Fold(s string) string { return string(AppendFolded(nil, s)) }

// FoldedWords returns the words of s, folded.
func FoldedWords(s string) []string { return strings.Fields(Fold(s)) }

// Words splits s into its words as written (neither folded nor cut):
// the runs of letters, digits and underscores. A host name, a URL, an
// e-mail or an address is so many words: "hooks.zendesk-relay.example"
// holds "zendesk".
func Words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !IsWordRune(r) })
}

// IsWordRune reports whether r belongs to a word of free text: a
// letter, a digit or an underscore.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// FreeText returns the free-text values of Filter.Q as Parse wrote it:
// each word or phrase, all required.
func FreeText(q string) []audit.TermValue {
	toks, _ := tokenize(q)
	out := make([]audit.TermValue, 0, len(toks))
	for _, t := range toks {
		out = append(out, textValue(t))
	}
	return out
}

// Tokens splits q into its terms as Parse reads them: at white space
// outside quotes (an OR is a token of its own).
func Tokens(q string) []string {
	toks, _ := tokenize(q)
	return toks
}
