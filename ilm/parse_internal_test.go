package ilm

import (
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

// TestAPolicyThatDriftsFromThePlanDoesNotLoad: a delete phase that is not
// the plan's retention (audit.Plan.Retention, the one source) is refused.
func TestAPolicyThatDriftsFromThePlanDoesNotLoad(t *testing.T) {
	raw, err := files.ReadFile("starter.json")
	if err != nil {
		t.Fatal(err)
	}
	drifted := strings.Replace(string(raw), `"min_age": "30d"`, `"min_age": "31d"`, 1)
	if drifted == string(raw) {
		t.Fatal("starter.json no longer says min_age 30d: update this test")
	}
	if _, err := parse(audit.PlanStarter, []byte(drifted)); err == nil || !strings.Contains(err.Error(), "audit.Plan.Retention is the source") {
		t.Fatalf("a drifted policy loaded: %v", err)
	}
	if _, err := parse(audit.PlanStarter, raw); err != nil {
		t.Fatal(err)
	}
}
