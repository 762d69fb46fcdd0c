package elasticsearch

import (
	"encoding/json"
	"slices"
	"testing"

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
