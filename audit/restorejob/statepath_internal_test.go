package restorejob

import (
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

func TestParsePath(t *testing.T) {
	for path, want := range map[string]int{"a": 1, "a.b.c": 3, "rules[r2].mode": 3, "m[1][2]": 3, "rules[r2]": 2} {
		steps, err := parsePath(path)
		if err != nil || len(steps) != want {
			t.Errorf("%q: %d steps (%v), want %d", path, len(steps), err, want)
		}
	}
	for _, bad := range []string{"", ".a", "a[", "a[]", "a[x]y", "[x]"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestAssignAndLookup(t *testing.T) {
	var v any
	_ = json.Unmarshal([]byte(`{"a":{"b":1},"rules":[{"id":"r1","m":"x"}]}`), &v)
	for _, c := range []struct {
		path    string
		val     any
		present bool
		want    string
	}{
		{"a.b", 2.0, true, `{"a":{"b":2},"rules":[{"id":"r1","m":"x"}]}`},
		{"a.c.d", true, true, `{"a":{"b":2,"c":{"d":true}},"rules":[{"id":"r1","m":"x"}]}`},
		{"rules[r1].m", "y", true, `{"a":{"b":2,"c":{"d":true}},"rules":[{"id":"r1","m":"y"}]}`},
		{"rules[r2]", map[string]any{"id": "r2"}, true, `{"a":{"b":2,"c":{"d":true}},"rules":[{"id":"r1","m":"y"},{"id":"r2"}]}`},
		{"rules[r1]", nil, false, `{"a":{"b":2,"c":{"d":true}},"rules":[{"id":"r2"}]}`},
		{"a.c", nil, false, `{"a":{"b":2},"rules":[{"id":"r2"}]}`},
	} {
		steps, _ := parsePath(c.path)
		var err error
		if v, err = assign(v, steps, c.val, c.present); err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if b, _ := json.Marshal(v); string(b) != c.want {
			t.Fatalf("%s: %s, want %s", c.path, b, c.want)
		}
		if got, ok := lookup(v, steps); ok != c.present || (ok && !jsonenc.Same(rawOf(got), rawOf(c.val))) {
			t.Fatalf("lookup %s: %v %v", c.path, got, ok)
		}
	}
	steps, _ := parsePath("a.b.c")
	if _, err := assign(v, steps, 1, true); err == nil {
		t.Fatal("a path through a number was accepted")
	}
}

func rawOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
