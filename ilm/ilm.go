// Package ilm holds the index lifecycle policy of each plan as JSON (the
// files beside this one): installed as ILM policies where the cluster has
// ILM, and read by the built-in lifecycle worker where it does not. The
// retention numbers have one source, audit.Plan.Retention: a policy whose
// delete phase says otherwise does not load (For), so the service cannot
// start with a copy that drifted.
package ilm

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

//go:embed *.json
var files embed.FS

// Policy is one plan's lifecycle.
type Policy struct {
	Plan audit.Plan
	// Body is the PUT _ilm/policy request body.
	Body json.RawMessage
	// RolloverMaxAge and RolloverMaxPrimaryShardSize are the hot phase's
	// rollover conditions, in Elasticsearch notation ("7d", "10gb").
	RolloverMaxAge              string
	RolloverMaxPrimaryShardSize string
	// DeleteAfter is the delete phase's min_age: how long after rollover
	// a backing index is deleted.
	DeleteAfter time.Duration
	// Phases lists the phases in order.
	Phases []string
}

// MaxAge is the real longest time an event is kept: the delete min_age
// counts from rollover, and the index may hold events up to the rollover
// max_age old when it rolls over.
func (p Policy) MaxAge() time.Duration {
	d, _ := ParseDuration(p.RolloverMaxAge)
	return p.DeleteAfter + d
}

// For returns the policy of plan.
func For(plan audit.Plan) (Policy, error) {
	raw, err := files.ReadFile(string(plan) + ".json")
	if err != nil {
		return Policy{}, fmt.Errorf("ilm: no policy for plan %q", plan)
	}
	return parse(plan, raw)
}

// parse reads a plan's policy document and checks it against the plan.
func parse(plan audit.Plan, raw []byte) (Policy, error) {
	var doc struct {
		Policy struct {
			Phases map[string]struct {
				MinAge  string `json:"min_age"`
				Actions struct {
					Rollover *struct {
						MaxAge              string `json:"max_age"`
						MaxPrimaryShardSize string `json:"max_primary_shard_size"`
					} `json:"rollover"`
				} `json:"actions"`
			} `json:"phases"`
		} `json:"policy"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Policy{}, fmt.Errorf("ilm: %s.json: %w", plan, err)
	}
	var err error
	p := Policy{Plan: plan, Body: raw}
	for _, name := range []string{"hot", "warm", "cold", "delete"} {
		ph, ok := doc.Policy.Phases[name]
		if !ok {
			continue
		}
		p.Phases = append(p.Phases, name)
		if r := ph.Actions.Rollover; r != nil {
			p.RolloverMaxAge, p.RolloverMaxPrimaryShardSize = r.MaxAge, r.MaxPrimaryShardSize
		}
		if name == "delete" {
			if p.DeleteAfter, err = ParseDuration(ph.MinAge); err != nil {
				return Policy{}, fmt.Errorf("ilm: %s.json delete min_age: %w", plan, err)
			}
		}
	}
	if p.RolloverMaxAge == "" || p.RolloverMaxPrimaryShardSize == "" || p.DeleteAfter == 0 {
		return Policy{}, fmt.Errorf("ilm: %s.json needs a rollover (max_age, max_primary_shard_size) and a delete phase", plan)
	}
	if p.DeleteAfter != plan.Retention() {
		return Policy{}, fmt.Errorf("ilm: %s.json deletes %v after rollover, but the %s plan keeps events %v (audit.Plan.Retention is the source)",
			plan, p.DeleteAfter, plan, plan.Retention())
	}
	return p, nil
}

// All returns the policy of every plan.
func All() ([]Policy, error) {
	out := make([]Policy, 0, len(audit.Plans))
	for _, plan := range audit.Plans {
		p, err := For(plan)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseDuration reads an Elasticsearch time value: a number and one of
// d, h, m, s, ms.
func ParseDuration(s string) (time.Duration, error) {
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"ms", time.Millisecond}, {"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("bad time value %q", s)
			}
			return time.Duration(v) * u.unit, nil
		}
	}
	return 0, fmt.Errorf("bad time value %q", s)
}

// Backstop is the policy's body for a cluster whose ILM is a backstop
// (elasticsearch.StoreConfig.ILMBackstop): the service's lifecycle pass
// rolls over and deletes, recording each deletion in the tenant's
// verifiable log, and ILM only deletes a backing index margin past the
// longest the pass keeps one (MaxAge), should the pass not have run for
// that long. It has no rollover: the pass rolls over, and a delete
// phase's min_age counts from that rollover.
func (p Policy) Backstop(margin time.Duration) json.RawMessage {
	days := int64((p.MaxAge() + margin + 24*time.Hour - 1) / (24 * time.Hour))
	body, _ := json.Marshal(map[string]any{"policy": map[string]any{
		"_meta": map[string]any{"managed_by": "auditlog", "plan": p.Plan,
			"description": fmt.Sprintf("Backstop of the %s plan: the service's lifecycle pass deletes at the retention and records it in the log; this deletes %d days after rollover only if it did not.", p.Plan, days)},
		"phases": map[string]any{"delete": map[string]any{"min_age": strconv.FormatInt(days, 10) + "d", "actions": map[string]any{"delete": map[string]any{}}}},
	}})
	return body
}
