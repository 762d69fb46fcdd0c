package audit

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// DeepDiff compares two complete states (JSON objects) field by field:
//   - nested objects give dotted paths ("schedule.weekdays.start");
//   - arrays whose elements are all objects with a unique scalar "id" are
//     matched by id, an element's path being "rules[<id>]"
//     ("rules[r2].mode"); an element present on one side only is added
//     or removed whole;
//   - any other array is compared by value, as one field;
//   - a field present on one side only has null on the other.
//
// Paths are written as found: a key holding "." or "[" is not escaped.
// It returns an error when either state is not a JSON object.
func DeepDiff(before, after json.RawMessage) (map[string]Change, error) {
	a, err := jsonenc.Decode(before)
	if err != nil {
		return nil, fmt.Errorf("before is not JSON: %v", err)
	}
	b, err := jsonenc.Decode(after)
	if err != nil {
		return nil, fmt.Errorf("after is not JSON: %v", err)
	}
	ao, okA := a.(map[string]any)
	bo, okB := b.(map[string]any)
	if !okA || !okB {
		return nil, fmt.Errorf("before and after must be JSON objects")
	}
	out := map[string]Change{}
	diffObjects(out, "", ao, bo)
	return out, nil
}

func diffValues(out map[string]Change, path string, a, b any) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			diffObjects(out, path, av, bv)
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			if ai, aok := byID(av); aok {
				if bi, bok := byID(bv); bok {
					diffByID(out, path, ai, bi)
					return
				}
			}
		}
	}
	if from, to := rawOf(a), rawOf(b); !jsonenc.Same(from, to) {
		out[path] = Change{From: from, To: to}
	}
}

func diffObjects(out map[string]Change, path string, a, b map[string]any) {
	for _, k := range unionKeys(a, b) {
		p := k
		if path != "" {
			p = path + "." + k
		}
		diffValues(out, p, a[k], b[k])
	}
}

func diffByID(out map[string]Change, path string, a, b map[string]any) {
	for _, id := range unionKeys(a, b) {
		diffValues(out, path+"["+id+"]", a[id], b[id])
	}
}

// byID indexes an array of objects by their "id", or reports that the
// array is not one (an element without a scalar id, or a repeated id).
// An empty array qualifies: it matches the other side's shape.
func byID(arr []any) (map[string]any, bool) {
	m := make(map[string]any, len(arr))
	for _, x := range arr {
		id, ok := jsonenc.ObjectID(x)
		if !ok {
			return nil, false
		}
		if _, dup := m[id]; dup {
			return nil, false
		}
		m[id] = x
	}
	return m, true
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func rawOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
