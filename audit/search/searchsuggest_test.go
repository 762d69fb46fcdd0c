package search_test

import (
	"slices"
	"testing"

	"github.com/auditlog/auditlog/audit/search"
)

func TestAlternatives(t *testing.T) {
	for q, want := range map[string][]string{
		"resource:queue role:admin":          {"type:queue role:admin"},
		"type:q-17":                          {"resource:q-17"},
		`reason:"payment dispute"`:           {`"payment dispute"`},
		"zendesk":                            {"actor:zendesk*", "type:zendesk"},
		"Delete":                             {"actor:delete*", "type:delete", "action:delete"},
		"actor:grace":                        {"actor:grace*"},
		"actor:grace@acme.example":           nil,
		"request:req-9 action:update":        {"req-9 action:update"},
		"-resource:queue":                    nil,
		"queue OR ivr":                       nil,
		`"unclosed`:                          nil,
		"a":                                  nil,
		"grace queue ivr recording did role": {"actor:grace* queue ivr recording did role", "type:grace queue ivr recording did role", "grace actor:queue* ivr recording did role", "grace type:queue ivr recording did role"},
	} {
		got := search.Alternatives(q)
		if !slices.Equal(got, want) {
			t.Errorf("Alternatives(%q) = %q, want %q", q, got, want)
		}
	}
}
