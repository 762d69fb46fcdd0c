package elasticsearch

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/search"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/auditlog/auditlog/audit"
)

// TestJoinedWords: the texts the standard analyzer keeps whole at a dot,
// colon, apostrophe, comma or semicolon come split; the others do not
// (the search field already holds their words).
func TestJoinedWords(t *testing.T) {
	for s, want := range map[string]bool{
		"hooks.zendesk-relay.example": true, "grace@acme.example": true, "10:30": true, "o'brien": true, "1,5": true, "a;b": true,
		"CS-4821": false, "welcome screen": false, "end.": false, ". start": false, "periodic_export": false, "": false,
	} {
		if got := joins(s); got != want {
			t.Errorf("joins(%q) = %v, want %v", s, got, want)
		}
	}
	e := audit.Event{Actor: audit.Actor{Email: "Grace@Acme.example", UserAgent: "curl/8.5.0"}, Resource: audit.Resource{ID: "q-1"},
		Diff: map[string]audit.Change{"callbackUrl": {From: json.RawMessage("null"), To: json.RawMessage(`"https://hooks.zendesk-relay.example/v1"`)}}}
	got := joinedWords(&e, e.SearchValues())
	want := []string{"Grace Acme example", "curl 8 5 0", "https hooks zendesk relay example v1"}
	if !slices.Equal(got, want) {
		t.Fatalf("joinedWords = %q, want %q", got, want)
	}
}

// TestJoinedWordsOfAnyText: on random texts of ASCII and other letters,
// digits, joiners, combining marks and invalid bytes, joins agrees with
// a rune-by-rune reading of its rule, and the document's words member
// holds search.Words of each joined text (strings.FieldsFunc), however the
// encoder walks the bytes.
func TestJoinedWordsOfAnyText(t *testing.T) {
	alphabet := []string{"a", "Z", "7", "_", ".", ":", "'", "’", ",", ";", "·", " ", "-", "/", "@", "é", "ß", "٣", "漢", "\u0301", "\xff", "\u2028", "Ⅻ"}
	refJoins := func(s string) bool {
		rs := []rune(s)
		for i := 1; i+1 < len(rs); i++ {
			alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
			if strings.ContainsRune(".:'’,;·", rs[i]) && alnum(rs[i-1]) && alnum(rs[i+1]) {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(5, 9))
	joined := 0
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		if got, want := joins(s), refJoins(s); got != want {
			t.Fatalf("joins(%q) = %v, want %v", s, got, want)
		}
		e := audit.Event{Resource: audit.Resource{ID: s}}
		var doc struct{ Words []string }
		if b := appendJoinedWords(nil, &e, nil); len(b) > 0 {
			if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(string(b), ",")+"}"), &doc); err != nil {
				t.Fatalf("%q: %v: %s", s, err, b)
			}
		}
		var want []string
		if refJoins(s) {
			want = []string{strings.Join(search.Words(strings.ToValidUTF8(s, "\uFFFD")), " ")}
			joined++
		}
		if !slices.Equal(doc.Words, want) {
			t.Fatalf("words of %q = %q, want %q", s, doc.Words, want)
		}
	}
	if joined < 1000 {
		t.Fatalf("only %d of the texts joined: the generator tests little", joined)
	}
}
