package streaming_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// TestAPauseByTheServiceIsInTheTenantsLog (issue 54): a destination that
// refuses the credentials pauses the stream, and the pause is a record
// in the tenant's log (the service as actor, the stream as resource, the
// destination's words as the reason), once, however many steps follow.
func TestAPauseByTheServiceIsInTheTenantsLog(t *testing.T) {
	s, st, rc, _ := setup(t)
	ctx := context.Background()
	s.Records = s.Events.(audit.EventWriter)
	rc.answer = func(w http.ResponseWriter) bool { w.WriteHeader(http.StatusUnauthorized); return true }
	for range 3 {
		if _, err := s.Step(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	if st.State != stream.Paused {
		t.Fatalf("state %s", st.State)
	}
	res, err := s.Events.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: st.TenantID, ResourceTypes: []string{audit.ResourceAuditStream}},
		Sort: audit.Sort{Field: audit.SortTimestamp, Desc: true}, PageSize: 10, Page: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 {
		t.Fatalf("%d records of the stream, want the pause's alone: %+v", len(res.Events), res.Events)
	}
	e := res.Events[0]
	if e.Actor.ID != audit.SystemActor.ID || e.Resource.ID != st.ID || !strings.Contains(e.Reason, "401") || !strings.Contains(string(e.After), `"state":"paused"`) {
		t.Fatalf("the pause's record: %+v", e)
	}
}
