package gen

import (
	"bytes"
	"maps"
	"slices"

	"github.com/auditlog/auditlog/audit"
)

// With Config.Versions, the updates of IVRs, recording policies and
// queues change a few resources per tenant one after the other, each
// update's before the previous one's after, so the demo's resources have
// histories to compare and restore (without it, every update touches a
// resource of its own).

// pool is a tenant's resources of one type and their current states.
type pool struct {
	ids   []string
	state map[string]map[string]any
}

// versionedTypes are the types whose updates go to the pool, with the
// first state of a resource and how an update changes a state.
var versionedTypes = map[string]struct {
	first  func(g *Generator, i int) map[string]any
	change func(g *Generator, s map[string]any)
}{
	audit.ResourceIVR: {
		first: func(_ *Generator, _ int) map[string]any {
			return map[string]any{"version": 1, "greeting": greetings[0], "menu": []string{"1:sales", "2:support"}, "afterHours": "voicemail"}
		},
		change: func(g *Generator, s map[string]any) {
			s["version"] = s["version"].(int) + 1
			switch g.rng.IntN(3) {
			case 0:
				s["greeting"] = other(g, greetings, s["greeting"].(string))
			case 1:
				s["afterHours"] = other(g, []string{"voicemail", "forward:+15550100", "hangup"}, s["afterHours"].(string))
			default:
				if len(s["menu"].([]string)) == 2 {
					s["menu"] = []string{"1:sales", "2:support", "3:billing"}
				} else {
					s["menu"] = []string{"1:sales", "2:support"}
				}
			}
		},
	},
	audit.ResourceRecordingPolicy: {
		first: func(_ *Generator, _ int) map[string]any {
			return map[string]any{"enabled": true, "retentionDays": 90, "pauseOnPayment": false}
		},
		change: func(g *Generator, s map[string]any) {
			if g.rng.IntN(3) == 0 {
				s["pauseOnPayment"] = !s["pauseOnPayment"].(bool)
				return
			}
			s["retentionDays"] = other(g, []int{30, 90, 180, 365}, s["retentionDays"].(int))
		},
	},
	audit.ResourceQueue: {
		first: func(_ *Generator, i int) map[string]any {
			return map[string]any{"name": queueNames[i%len(queueNames)], "maxWaitSeconds": 300, "overflowQueue": nil}
		},
		change: func(g *Generator, s map[string]any) {
			if g.rng.IntN(2) == 0 {
				s["maxWaitSeconds"] = other(g, []int{120, 180, 300, 600, 900}, s["maxWaitSeconds"].(int))
				return
			}
			cur, _ := s["overflowQueue"].(string)
			s["overflowQueue"] = other(g, queueNames, cur)
		},
	},
}

var greetings = []string{"Welcome to support", "Welcome! Calls may be recorded", "Thanks for calling, please hold", "Our offices are closed today"}

// other picks a value of list other than cur.
func other[T comparable](g *Generator, list []T, cur T) T {
	for {
		if v := list[g.rng.IntN(len(list))]; v != cur {
			return v
		}
	}
}

// version makes e, an update of a versioned type, the next version of one
// of t's resources of that type: its id, before, after and diff.
func (g *Generator) version(e *audit.Event, t *Tenant) {
	kind, ok := versionedTypes[e.Resource.Type]
	if !ok || e.Action != audit.ActionUpdate || g.cfg.Versions <= 0 {
		return
	}
	if t.pools == nil {
		t.pools = map[string]*pool{}
	}
	p := t.pools[e.Resource.Type]
	if p == nil {
		p = &pool{state: map[string]map[string]any{}}
		t.pools[e.Resource.Type] = p
	}
	if len(p.ids) < g.cfg.Versions && (len(p.ids) == 0 || g.rng.IntN(4) == 0) {
		id := g.uuid()
		p.ids = append(p.ids, id)
		p.state[id] = kind.first(g, len(p.ids)-1)
	}
	id := p.ids[g.rng.IntN(len(p.ids))]
	before := p.state[id]
	after := maps.Clone(before)
	kind.change(g, after)
	p.state[id] = after
	e.Resource.ID, e.Before, e.After = id, raw(before), raw(after)
	e.Diff = map[string]audit.Change{}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if from, to := raw(before[k]), raw(after[k]); !bytes.Equal(from, to) {
			e.Diff[k] = audit.Change{From: from, To: to}
		}
	}
}
