package audit_test

import (
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

func TestDeepDiff(t *testing.T) {
	cases := []struct {
		name          string
		before, after string
		want          map[string][2]string // path → from, to (JSON)
	}{
		{"equal states", `{"a":1,"b":{"c":[1,2]}}`, `{"b":{"c":[1,2]},"a":1.0}`, map[string][2]string{}},
		{"a scalar changed", `{"a":1}`, `{"a":2}`, map[string][2]string{"a": {`1`, `2`}}},
		{"nested objects give dotted paths", `{"s":{"w":{"start":"09:00","end":"17:00"}}}`, `{"s":{"w":{"start":"08:00","end":"17:00"}}}`,
			map[string][2]string{"s.w.start": {`"09:00"`, `"08:00"`}}},
		{"a field added and one removed", `{"a":1,"gone":{"x":1}}`, `{"a":1,"new":[1]}`,
			map[string][2]string{"gone": {`{"x":1}`, `null`}, "new": {`null`, `[1]`}}},
		{"arrays of scalars by value, order matters", `{"menu":["1:sales","2:support"]}`, `{"menu":["2:support","1:sales"]}`,
			map[string][2]string{"menu": {`["1:sales","2:support"]`, `["2:support","1:sales"]`}}},
		{"arrays of objects matched by id, whatever the order", `{"rules":[{"id":"r1","mode":"all"},{"id":"r2","mode":"none"}]}`,
			`{"rules":[{"id":"r2","mode":"some"},{"id":"r1","mode":"all"}]}`, map[string][2]string{"rules[r2].mode": {`"none"`, `"some"`}}},
		{"an element added and one removed by id", `{"rules":[{"id":1,"m":"a"},{"id":2,"m":"b"}]}`, `{"rules":[{"id":1,"m":"a"},{"id":3,"m":"c"}]}`,
			map[string][2]string{"rules[2]": {`{"id":2,"m":"b"}`, `null`}, "rules[3]": {`null`, `{"id":3,"m":"c"}`}}},
		{"repeated ids fall back to by value", `{"r":[{"id":1},{"id":1}]}`, `{"r":[{"id":1}]}`,
			map[string][2]string{"r": {`[{"id":1},{"id":1}]`, `[{"id":1}]`}}},
		{"a type change is one change", `{"a":{"x":1}}`, `{"a":"x"}`, map[string][2]string{"a": {`{"x":1}`, `"x"`}}},
		{"big integers keep their digits", `{"n":9007199254740993}`, `{"n":9007199254740992}`,
			map[string][2]string{"n": {`9007199254740993`, `9007199254740992`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := audit.DeepDiff(json.RawMessage(c.before), json.RawMessage(c.after))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d paths %v, want %v", len(got), keys(got), c.want)
			}
			for p, w := range c.want {
				g, ok := got[p]
				if !ok || string(g.From) != w[0] || string(g.To) != w[1] {
					t.Fatalf("%s: got %s → %s, want %s → %s (all: %v)", p, g.From, g.To, w[0], w[1], keys(got))
				}
			}
		})
	}
	for _, bad := range [][2]string{{`[1]`, `{}`}, {`{}`, `"x"`}, {`{`, `{}`}} {
		if _, err := audit.DeepDiff(json.RawMessage(bad[0]), json.RawMessage(bad[1])); err == nil {
			t.Errorf("DeepDiff(%s, %s) accepted states that are not objects", bad[0], bad[1])
		}
	}
}

func keys(m map[string]audit.Change) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
