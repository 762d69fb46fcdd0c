package api_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestTheListAnswerIsWhatEncodingJSONWrites: the hand-written list
// envelope is byte for byte encoding/json's, with and without a cursor,
// a page number and events, and with strings it HTML-escapes.
func TestTheListAnswerIsWhatEncodingJSONWrites(t *testing.T) {
	g := gen.New(gen.Config{Seed: 11, Tenants: 2, WithIDs: true}, 60)
	var events []audit.Event
	for i := 0; i < 60; i++ {
		events = append(events, g.Next())
	}
	events[3].Reason = `<script>&"quoted"` + "\u2028"
	cursor, page := `c<&>"\`+"\u2029", 7
	for name, r := range map[string]api.ListResponse{
		"empty first page":     {Data: []audit.Event{}, Total: audit.Total{Value: 0, Relation: audit.TotalExact}, Page: &page, PageSize: 50},
		"a page with a cursor": {Data: events[:50], NextCursor: &cursor, HasMore: true, Total: audit.Total{Value: 10000, Relation: audit.TotalAtLeast}, PageSize: 50},
		"a last page":          {Data: events[50:], Total: audit.Total{Value: 60, Relation: audit.TotalExact}, Page: &page, PageSize: 10},
		"nil data":             {Total: audit.Total{Relation: audit.TotalExact}, PageSize: 1},
		"unreadable rows": {Data: events[:2], Unreadable: []audit.UnreadableEvent{{ID: "evt_audit_x", Reason: `<not "json">`}, {ID: "y", Reason: "z"}},
			Total: audit.Total{Value: 4, Relation: audit.TotalExact}, Page: &page, PageSize: 4},
		"suggestions": {Data: []audit.Event{}, Total: audit.Total{Relation: audit.TotalExact}, Page: &page, PageSize: 50,
			Suggestions: []api.Suggestion{{Q: `type:queue "<b>"`, Total: audit.Total{Value: 3, Relation: audit.TotalExact}}, {Q: "actor:a*", Total: audit.Total{Value: 10000, Relation: audit.TotalAtLeast}}}},
	} {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// An event whose raw value is not JSON is an error, not a broken answer.
func TestTheListAnswerRefusesAnEventThatIsNotJSON(t *testing.T) {
	r := api.ListResponse{Data: []audit.Event{{ID: "x", After: json.RawMessage(`{"a":`)}}}
	if _, err := r.AppendJSON(nil); err == nil {
		t.Fatal("an invalid raw value was encoded")
	}
}
