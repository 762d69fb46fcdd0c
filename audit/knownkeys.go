package audit

import (
	"reflect"
	"strings"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// The fast path of DecodeEvent decodes with a decoder that ignores
// unknown keys (goccy's Unmarshal: no stream, far fewer allocations than
// its strict stream decoder), so knownKeys first checks that every key
// of the event, its actor, its resource and its diff's changes is one the
// decoder matches: a field's name up to ASCII case, as the decoder
// matches it. Any other key (unknown, escaped, or not ASCII) sends the
// event to the slow path, which names it. Nothing is ever dropped.

// keysOf lists the JSON names of a struct's fields.
func keysOf(v any) []string {
	t := reflect.TypeOf(v)
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

var (
	eventKeys    = keysOf(Event{})
	actorKeys    = keysOf(Actor{})
	resourceKeys = keysOf(Resource{})
	changeKeys   = keysOf(Change{})
)

// knownKeys reports whether every key of the event is a field's.
func knownKeys(data []byte) bool {
	return jsonenc.Members(data, func(k []byte, escaped bool, v []byte) bool {
		name, ok := fieldOf(k, escaped, eventKeys)
		if !ok {
			return false
		}
		switch name {
		case "actor":
			return objectKeys(v, actorKeys)
		case "resource":
			return objectKeys(v, resourceKeys)
		case "diff":
			return !isObject(v) || jsonenc.Members(v, func(_ []byte, _ bool, c []byte) bool { return objectKeys(c, changeKeys) })
		}
		return true
	})
}

// objectKeys: v is no object (the decoder judges it), or each of its
// keys is one of keys.
func objectKeys(v []byte, keys []string) bool {
	return !isObject(v) || jsonenc.Members(v, func(k []byte, escaped bool, _ []byte) bool {
		_, ok := fieldOf(k, escaped, keys)
		return ok
	})
}

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

// fieldOf returns the field a key names, up to ASCII case.
func fieldOf(k []byte, escaped bool, keys []string) (string, bool) {
	if escaped {
		return "", false
	}
	if i := fieldIndex(k, keys); i >= 0 {
		return keys[i], true
	}
	return "", false
}

func asciiFold(k []byte, name string) bool {
	for i := range k {
		a, b := k[i], name[i]
		if a >= 'A' && a <= 'Z' {
			a += 'a' - 'A'
		}
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
