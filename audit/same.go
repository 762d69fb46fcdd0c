package audit

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
)

// SameEvent reports whether a and b are the same audit event: every
// field equal, with the JSON of diff values, before and after compared
// by meaning (key order and white space do not count; 1 and 1.0 are the
// same number), and an empty diff equal to an absent one. Both events
// must be normalized (DecodeEvent does it). It is how a store tells an
// idempotent redelivery (WriteDuplicate) from a different event reusing
// an id (WriteConflict).
func SameEvent(a, b *Event) bool {
	for i := range EventFields {
		f := &EventFields[i]
		same := true
		switch f.Kind {
		case KindString:
			same = f.String(a) == f.String(b)
		case KindTime:
			same = a.Timestamp.Equal(b.Timestamp.Time)
		case KindBool:
			same = f.Bool(a) == f.Bool(b)
		case KindRaw:
			same = sameJSON(f.Raw(a), f.Raw(b))
		case KindDiff:
			same = sameChanges(a.Diff, b.Diff)
		}
		if !same {
			return false
		}
	}
	return true
}

func sameChanges(a, b map[string]Change) bool {
	if len(a) != len(b) {
		return false
	}
	for k, ca := range a {
		cb, ok := b[k]
		if !ok || !sameJSON(ca.From, cb.From) || !sameJSON(ca.To, cb.To) {
			return false
		}
	}
	return true
}

// sameJSON compares two JSON values by meaning; an absent value equals
// null.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, okA := decodeAny(a)
	vb, okB := decodeAny(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func decodeAny(raw json.RawMessage) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	v, err := decodeValue(raw)
	if err != nil {
		return nil, false
	}
	return normalizeNumbers(v), true
}

// jsonNumber is a number in its exact rational form: a type of its own,
// so that the number 30 never equals the string "30".
type jsonNumber string

// normalizeNumbers turns each json.Number into its exact rational value,
// so that 1, 1.0 and 1e0 compare equal while 9007199254740993 and
// 9007199254740992 (equal as float64) do not.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok {
			return jsonNumber(r.RatString())
		}
		return jsonNumber(x.String())
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}
