package elasticsearch

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
)

// TestTextOfAnEvent: the document's text holds each searchable text of
// the event folded, one element each, and reasonWords the reason's.
func TestTextOfAnEvent(t *testing.T) {
	e := audit.Event{Actor: audit.Actor{Email: "Grace@Acme.example", UserAgent: "Product/4.12.1"}, Resource: audit.Resource{ID: "q-1"},
		Reason: "Préférence de José",
		Diff:   map[string]audit.Change{"callbackUrl": {From: json.RawMessage("null"), To: json.RawMessage(`"https://hooks.zendesk-relay.example/v1"`)}}}
	var doc struct {
		Text        []string
		ReasonWords string
	}
	if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(string(appendText(nil, &e, e.ChangedFields(), nil)), ",")+"}"), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"grace acme example", "product 4 12 1", "q 1", "callbackurl", "preference de jose", "https hooks zendesk relay example v1"}
	if !slices.Equal(doc.Text, want) || doc.ReasonWords != "preference de jose" {
		t.Fatalf("text %q, reasonWords %q; want %q, %q", doc.Text, doc.ReasonWords, want, "preference de jose")
	}
}

// TestTextOfAnyText: on random texts of ASCII and other letters, digits,
// separators, combining marks and invalid bytes, the encoder's text (as
// JSON decodes it) is textWords, the value the verifier compares with,
// and holds no empty element but the one of an event without a word.
func TestTextOfAnyText(t *testing.T) {
	alphabet := []string{"a", "Z", "7", "_", ".", ":", "'", "’", ",", " ", "-", "/", "@", "é", "ß", "Æ", "٣", "漢", "\u0301", "\xff", "\u2028", "Ⅻ", `"`, `\`, "\uE000"}
	rng := rand.New(rand.NewPCG(5, 9))
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		e := audit.Event{Resource: audit.Resource{ID: s}, Reason: s}
		b := appendText(nil, &e, nil, nil)
		var doc struct {
			Text        []string
			ReasonWords string
		}
		if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(string(b), ",")+"}"), &doc); err != nil {
			t.Fatalf("%q: %v: %s", s, err, b)
		}
		if want := textWords(&e); !slices.Equal(doc.Text, want) || doc.ReasonWords != search.Fold(s) ||
			slices.Contains(doc.Text, "") != (search.Fold(s) == "") || len(doc.Text) == 0 {
			t.Fatalf("%q: text %q reasonWords %q, want %q %q", s, doc.Text, doc.ReasonWords, want, search.Fold(s))
		}
	}
}
