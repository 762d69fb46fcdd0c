package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// MaxSearchValueBytes bounds what one event offers free text beyond its
// e-mail, user agent, resource id and changed field names, so that the
// index of a large change stays small.
const MaxSearchValueBytes = 4096

// SearchValues returns what free text finds in an event besides its
// e-mail, user agent, resource id and changed field names: the operator's
// declared reason, then the changed values (the strings, numbers and
// booleans in the diff's from and to, at any depth, in field order), at
// most MaxSearchValueBytes. A masked secret is never among them: secrets
// are masked before an event is stored (mask.Policy), so no clear
// value exists, and a marker (IsMarker) is left out too.
func (e *Event) SearchValues() []string {
	return e.AppendSearchValues(nil, e.ChangedFields())
}

// AppendSearchValues appends the values of SearchValues to dst, given
// e's ChangedFields (a writer has them already): with room in dst, only
// a changed value that is not a plain string's bytes allocates.
func (e *Event) AppendSearchValues(dst []string, changed []string) []string {
	n := 0
	add := func(s string) bool {
		if s == "" || IsMarker(s) {
			return true
		}
		if n+len(s) > MaxSearchValueBytes {
			return false
		}
		n += len(s) + 1
		dst = append(dst, s)
		return true
	}
	add(e.Reason)
	for _, k := range changed {
		c := e.Diff[k]
		if !rawScalars(c.From, add) || !rawScalars(c.To, add) {
			break
		}
	}
	return dst
}

// rawScalars calls add with each scalar of a JSON value. A plain string,
// number or boolean (most changed values) is taken as it stands, without
// decoding: this runs for every event written.
func rawScalars(raw json.RawMessage, add func(string) bool) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	switch raw[0] {
	case '"':
		if len(raw) >= 2 && bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 && bytes.IndexByte(raw[1:len(raw)-1], '"') < 0 {
			return add(string(raw[1 : len(raw)-1]))
		}
	case '{', '[':
	default:
		return add(string(raw))
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	return scalars(v, add)
}

// scalars calls add with each scalar of v, depth first, until add says
// stop.
func scalars(v any, add func(string) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if !scalars(x[k], add) {
				return false
			}
		}
	case []any:
		for _, y := range x {
			if !scalars(y, add) {
				return false
			}
		}
	case string:
		return add(x)
	case float64, bool:
		return add(strings.TrimSpace(fmt.Sprint(x)))
	}
	return true
}
