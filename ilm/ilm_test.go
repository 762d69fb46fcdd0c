package ilm_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/ilm"
)

const day = 24 * time.Hour

// TestPoliciesCarryThePlanRetention checks each policy against spec §8.
func TestPoliciesCarryThePlanRetention(t *testing.T) {
	for _, tc := range []struct {
		plan   audit.Plan
		maxAge time.Duration // the retention plus the rollover's max_age
		phases []string
	}{
		{audit.PlanStarter, 37 * day, []string{"hot", "delete"}},
		{audit.PlanPro, 395 * day, []string{"hot", "delete"}},
		{audit.PlanEnterprise, 2647 * day, []string{"hot", "warm", "cold", "delete"}},
	} {
		p, err := ilm.For(tc.plan)
		if err != nil {
			t.Fatal(err)
		}
		if p.DeleteAfter != tc.plan.Retention() {
			t.Errorf("%s: delete after %v, want the plan's retention %v", tc.plan, p.DeleteAfter, tc.plan.Retention())
		}
		if p.MaxAge() != tc.maxAge {
			t.Errorf("%s: real max age %v, want %v", tc.plan, p.MaxAge(), tc.maxAge)
		}
		if p.RolloverMaxAge == "" || p.RolloverMaxPrimaryShardSize == "" {
			t.Errorf("%s: rollover needs max_age and max_primary_shard_size", tc.plan)
		}
		if len(p.Phases) != len(tc.phases) {
			t.Errorf("%s: phases %v, want %v", tc.plan, p.Phases, tc.phases)
		}
	}
	if _, err := ilm.For("gold"); err == nil {
		t.Fatal("unknown plan accepted")
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * day, "0ms": 0, "12h": 12 * time.Hour, "5m": 5 * time.Minute, "10s": 10 * time.Second} {
		if got, err := ilm.ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "d", "-1d", "1w", "1.5d"} {
		if _, err := ilm.ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

// TestBackstopDeletesOnlyAfterThePass: a backstop policy has no rollover
// and one delete phase, a margin past the longest the lifecycle pass keeps
// an index (the retention plus the rollover max_age), whole days.
func TestBackstopDeletesOnlyAfterThePass(t *testing.T) {
	for plan, want := range map[audit.Plan]string{audit.PlanStarter: "44d", audit.PlanPro: "402d", audit.PlanEnterprise: "2654d"} {
		p, err := ilm.For(plan)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Policy struct {
				Phases map[string]struct {
					MinAge  string         `json:"min_age"`
					Actions map[string]any `json:"actions"`
				} `json:"phases"`
			} `json:"policy"`
		}
		if err := json.Unmarshal(p.Backstop(7*day), &doc); err != nil {
			t.Fatal(err)
		}
		del, ok := doc.Policy.Phases["delete"]
		if len(doc.Policy.Phases) != 1 || !ok || del.MinAge != want || len(del.Actions) != 1 || del.Actions["delete"] == nil {
			t.Errorf("%s: %+v, want only a delete at %s", plan, doc.Policy.Phases, want)
		}
		if d, _ := ilm.ParseDuration(del.MinAge); d < p.MaxAge()+7*day {
			t.Errorf("%s: the backstop deletes at %v, before the pass would (%v) plus the margin", plan, d, p.MaxAge())
		}
	}
}
