package restorejob

import (
	"fmt"
	"strings"

	"github.com/auditlog/auditlog/audit"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// A state path names one field of a resource's state as DeepDiff writes
// it: object keys joined by dots ("storage.encryption.enabled"), and
// "[<id>]" for the element of an array of objects matched by its "id"
// ("rules[r2].mode"). Keys holding "." or "[" cannot be named.

// pathStep is one step of a state path: an object key, or an id in an
// array of objects.
type pathStep struct {
	key  string
	id   string
	byID bool
}

// CheckPath reports whether path is a well-formed state path: EINVALID
// naming it otherwise. It checks the form alone; whether a state has the
// path is the restore's to say.
func CheckPath(path string) error {
	_, err := parsePath(path)
	return err
}

// parsePath splits a state path into steps; EINVALID when malformed.
func parsePath(path string) ([]pathStep, error) {
	bad := audit.Errorf(audit.EINVALID, "%q is not a field path like rules[r2].mode", path)
	if path == "" {
		return nil, bad
	}
	var steps []pathStep
	for _, part := range strings.Split(path, ".") {
		key, rest, bracket := strings.Cut(part, "[")
		if key == "" && len(steps) == 0 || bracket && rest == "" || !bracket && key == "" {
			return nil, bad
		}
		if key != "" {
			steps = append(steps, pathStep{key: key})
		}
		for rest != "" {
			id, after, ok := strings.Cut(rest, "]")
			if !ok || id == "" {
				return nil, bad
			}
			steps = append(steps, pathStep{id: id, byID: true})
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, bad
			}
			rest = after[1:]
		}
	}
	return steps, nil
}

// lookup returns the value at steps in v, and whether it exists.
func lookup(v any, steps []pathStep) (any, bool) {
	for _, s := range steps {
		if !s.byID {
			o, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = o[s.key]; !ok {
				return nil, false
			}
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, false
		}
		i := indexByID(arr, s.id)
		if i < 0 {
			return nil, false
		}
		v = arr[i]
	}
	return v, true
}

// assign sets (present) or removes (!present) the value at steps inside
// root, creating missing objects on the way; it returns the new root.
func assign(root any, steps []pathStep, val any, present bool) (any, error) {
	if len(steps) == 0 {
		return val, nil
	}
	s := steps[0]
	if !s.byID {
		o, ok := root.(map[string]any)
		if !ok {
			if root != nil || !present {
				return root, fmt.Errorf("the value that would hold %s is not an object", s.key)
			}
			o = map[string]any{}
		}
		if len(steps) == 1 && !present {
			delete(o, s.key)
			return o, nil
		}
		child, err := assign(o[s.key], steps[1:], val, present)
		if err != nil {
			return root, err
		}
		o[s.key] = child
		return o, nil
	}
	arr, ok := root.([]any)
	if !ok && root != nil {
		return root, fmt.Errorf("the value that would hold [%s] is not an array", s.id)
	}
	i := indexByID(arr, s.id)
	switch {
	case len(steps) == 1 && !present:
		if i >= 0 {
			arr = append(arr[:i:i], arr[i+1:]...)
		}
		return arr, nil
	case i < 0:
		child, err := assign(nil, steps[1:], val, present)
		if err != nil {
			return root, err
		}
		return append(arr, child), nil
	}
	child, err := assign(arr[i], steps[1:], val, present)
	if err != nil {
		return root, err
	}
	arr[i] = child
	return arr, nil
}

func indexByID(arr []any, id string) int {
	for i, x := range arr {
		if got, ok := jsonenc.ObjectID(x); ok && got == id {
			return i
		}
	}
	return -1
}
