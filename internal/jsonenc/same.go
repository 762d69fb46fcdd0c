package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
)

// Decode reads one JSON value as encoding/json's Decoder with UseNumber
// gives it (DecodeNumbers, else the Decoder, which names the error).
func Decode(raw []byte) (any, error) {
	if v, ok := DecodeNumbers(raw); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// IsNull reports whether raw is the literal null.
func IsNull(raw []byte) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// Same compares two JSON values by meaning (key order and white space do
// not count; 1 and 1.0 are the same number, 9007199254740993 and
// 9007199254740992 are not); an absent value equals null.
func Same(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, okA := decodeAny(a)
	vb, okB := decodeAny(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

func decodeAny(raw []byte) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	v, err := Decode(raw)
	if err != nil {
		return nil, false
	}
	return normalizeNumbers(v), true
}

// exactNumber is a number in its exact rational form: a type of its own,
// so that the number 30 never equals the string "30".
type exactNumber string

// normalizeNumbers turns each json.Number into its exact rational value.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok {
			return exactNumber(r.RatString())
		}
		return exactNumber(x.String())
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

// ObjectID is the "id" member of a decoded JSON object, a string or a
// number, by which arrays of objects are matched element to element
// (a diff, a restore's path rules[r2]).
func ObjectID(x any) (string, bool) {
	o, ok := x.(map[string]any)
	if !ok {
		return "", false
	}
	switch v := o["id"].(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	}
	return "", false
}
