package search_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/auditlog/auditlog/audit/search"
)

// TestFoldedWords: the word model's classes, by example.
func TestFoldedWords(t *testing.T) {
	for in, want := range map[string]string{
		"Préférence de José":            "preference de jose",
		"Product/4.12.1 (X11; Linux)":   "product 4 12 1 x11 linux",
		"ops@eu.mail.acme.example":      "ops eu mail acme example",
		"queue_name=main_line _&5":      "queue_name main_line _ 5",
		"Æther straße Ørsted Łódź ﬁle":  "aether strasse orsted lodz file",
		"İstanbul e\u0301te x² Ⅻ":       "istanbul ete x2 xii",
		"数据中心 日本語・テキスト":                 "数据中心 日本語 テキスト",
		"O'Brien don’t 10:30 1,5 -- &&": "o brien don t 10 30 1 5",
		"":                              "",
	} {
		if got := search.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("a", 600)
	if got := search.FoldedWords(long); len(got) != 3 || len(got[0]) != 255 || len(got[1]) != 255 || len(got[2]) != 90 {
		t.Errorf("a run of 600 letters is words of %d characters, want 255, 255, 90", len(got))
	}
}

// TestFoldAgreesWithXText: on random texts, Fold makes the words that
// x/text's transformers (NFKD, combining marks removed), strings.ToLower
// and the model's spelling of the letters that do not decompose make.
func TestFoldAgreesWithXText(t *testing.T) {
	alphabet := []string{"a", "Z", "7", "_", ".", " ", "-", "é", "É", "e\u0301", "ß", "ẞ", "Æ", "œ", "Ø", "ł", "Đ", "ð", "Þ", "ı", "İ", "ﬁ", "²", "٣",
		"漢", "\u0301", "\xff", "\u2028", "Ⅻ", "ǅ", "Ω", "ά", "\uE000", "😀", "ｆｕｌｌ"}
	spell := strings.NewReplacer("ß", "ss", "æ", "ae", "œ", "oe", "ø", "o", "ł", "l", "đ", "d", "ð", "d", "þ", "th", "ı", "i")
	chain := transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)))
	rng := rand.New(rand.NewPCG(56, 1))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		folded, _, _ := transform.String(chain, strings.ToValidUTF8(s, " "))
		want := strings.FieldsFunc(spell.Replace(strings.ToLower(folded)), func(r rune) bool { return !search.IsWordRune(r) })
		if got := search.FoldedWords(s); !slices.Equal(got, want) {
			t.Fatalf("FoldedWords(%q) = %q, want %q", s, got, want)
		}
	}
}
