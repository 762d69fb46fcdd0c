package jsonenc

import "encoding/json"

// DecodeNumbers decodes raw, one JSON value, into what encoding/json's
// Decoder with UseNumber gives an `any`: map[string]any, []any, string,
// json.Number, bool and nil; a repeated key keeps its last value, and a
// string with invalid UTF-8 or a bad surrogate reads as decoding makes it.
// It answers false when raw is not valid JSON, for the caller to decode
// with encoding/json, which names the error. Written by hand because the
// Decoder reads from a stream into buffers it grows: those were a seventh
// of the bytes the indexer allocated (docs/indexer.md, "CPU per event").
// FuzzDecodeNumbers holds it to encoding/json.
func DecodeNumbers(raw []byte) (any, bool) {
	if !Valid(raw) {
		return nil, false
	}
	v, _ := decodeAt(raw, skipSpace(raw, 0))
	return v, true
}

// decodeAt decodes the valid value at raw[i:] and returns the index after it.
func decodeAt(raw []byte, i int) (any, int) {
	switch raw[i] {
	case '{':
		m := map[string]any{}
		for i = skipSpace(raw, i+1); raw[i] != '}'; {
			k, end := readString(raw, i)
			v, e := decodeAt(raw, skipSpace(raw, skipSpace(raw, end)+1)) // past the colon
			m[k] = v
			i = nextMember(raw, e)
		}
		return m, i + 1
	case '[':
		a := []any{}
		for i = skipSpace(raw, i+1); raw[i] != ']'; {
			v, e := decodeAt(raw, i)
			a = append(a, v)
			i = nextMember(raw, e)
		}
		return a, i + 1
	case '"':
		return readString(raw, i)
	case 't':
		return true, i + len("true")
	case 'f':
		return false, i + len("false")
	case 'n':
		return nil, i + len("null")
	}
	end := skipValue(raw, i)
	return json.Number(raw[i:end]), end
}

// nextMember skips the white space and the comma after a member or an
// element that ends at i.
func nextMember(raw []byte, i int) int {
	if i = skipSpace(raw, i); i < len(raw) && raw[i] == ',' {
		i = skipSpace(raw, i+1)
	}
	return i
}
