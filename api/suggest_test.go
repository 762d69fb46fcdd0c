package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// TestASearchThatFindsNothingSaysWhatWould (issue 42): a first page of a
// search with no match carries the searches read another way that find
// something, each with its count, counted from the tenant's events here;
// a search that finds something, or whose readings find nothing either,
// carries none.
func TestASearchThatFindsNothingSaysWhatWould(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	d := loadDataset(t, h)
	tok := token(t, d.A, audit.RoleAdmin, "")
	list := func(q string) api.ListResponse {
		t.Helper()
		r := h.get(t, "/api/audit-logs?pageSize=5&q="+url.QueryEscape(q), tok)
		if r.status != http.StatusOK {
			t.Fatalf("%q: %d %s", q, r.status, r.body)
		}
		var lr api.ListResponse
		r.json(t, &lr)
		return lr
	}
	count := func(keep func(e *audit.Event) bool) int64 {
		n := int64(0)
		for i := range d.Events {
			if keep(&d.Events[i]) {
				n++
			}
		}
		return n
	}
	queues := count(func(e *audit.Event) bool { return e.Resource.Type == "queue" })
	ivrAdmins := count(func(e *audit.Event) bool { return e.Resource.Type == "ivr" && e.Actor.Role == "admin" })
	if queues == 0 || ivrAdmins == 0 {
		t.Fatal("the data has no queue events or no IVR events by admins")
	}
	for q, want := range map[string][]api.Suggestion{
		"resource:queue":               {{Q: "type:queue", Total: audit.Total{Value: queues, Relation: "eq"}}},
		"resource:ivr role:admin":      {{Q: "type:ivr role:admin", Total: audit.Total{Value: ivrAdmins, Relation: "eq"}}},
		"type:queue":                   nil, // found: no suggestion
		"resource:no_such_kind_at_all": nil,
	} {
		lr := list(q)
		if (lr.Total.Value == 0) != (want != nil || strings.Contains(q, "no_such")) {
			t.Errorf("%q: total %d", q, lr.Total.Value)
		}
		if len(lr.Suggestions) != len(want) {
			t.Errorf("%q: suggestions %+v, want %+v", q, lr.Suggestions, want)
			continue
		}
		for i := range want {
			if lr.Suggestions[i] != want[i] {
				t.Errorf("%q: suggestion %+v, want %+v", q, lr.Suggestions[i], want[i])
			}
		}
	}
}
