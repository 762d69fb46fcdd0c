package restorejob

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/auditlog/auditlog/audit"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// restoredState is the state to put back: the whole source state, or,
// with fields, the current state with those paths taken from the source
// (removed where the source lacks them). Secrets (well-formed markers)
// are never written back: they are left out, the source's and the current
// state's, and their paths returned, so that the owner keeps what it has
// there.
//
// A restore must change something: EINVALID names the version when the
// current state already equals the source (secrets aside), and each field
// that is a secret, is in neither state, or already has the source's
// value. A parent path restores every non-secret leaf under it. When the
// current state is unknown (the latest version carries only a diff), the
// restore is planned without these checks.
func restoredState(source, current json.RawMessage, fields []string) (json.RawMessage, []string, error) {
	src, err := jsonenc.Decode(source)
	if err != nil {
		return nil, nil, audit.Errorf(audit.EINVALID, "the stored state does not decode: %v", err)
	}
	var cur any
	known := len(current) > 0 && !jsonenc.IsNull(current)
	if known {
		if cur, err = jsonenc.Decode(current); err != nil {
			return nil, nil, audit.Errorf(audit.EINVALID, "the current state does not decode: %v", err)
		}
	}
	omitted := []string{}
	if len(fields) == 0 {
		state := stripMasked(src, "", &omitted)
		if known && sameValue(state, stripMasked(cur, "", new([]string))) {
			return nil, nil, audit.FieldErrors{{Field: "version", Message: "the current state already has every value of this version (secrets, which a restore never writes back, aside): restoring it changes nothing"}}.Err("invalid restore")
		}
		out, _ := json.Marshal(state)
		sort.Strings(omitted)
		return out, omitted, nil
	}
	if !known {
		cur = map[string]any{}
	}
	var fe audit.FieldErrors
	for _, f := range fields {
		if cur, err = restoreField(src, cur, f, known, &omitted); err != nil {
			fe = append(fe, audit.FieldError{Field: "fields", Message: audit.ErrorMessage(err)})
		}
	}
	if len(fe) > 0 {
		return nil, nil, fe.Err("invalid restore")
	}
	// The current state's own masked values go too: the owner keeps what
	// it has for every omitted path.
	out, _ := json.Marshal(stripMasked(cur, "", &omitted))
	sort.Strings(omitted)
	return out, slices.Compact(omitted), nil
}

// restoreField puts the source's value at path f into cur (its secret
// leaves left out and recorded) and returns the new current state, or
// EINVALID saying why the field cannot be restored.
func restoreField(src, cur any, f string, known bool, omitted *[]string) (any, error) {
	steps, err := parsePath(f)
	if err != nil {
		return cur, err
	}
	sv, inSource := lookup(src, steps)
	cv, inCurrent := lookup(cur, steps)
	if s, ok := sv.(string); ok && audit.IsMarker(s) {
		return cur, audit.Errorf(audit.EINVALID, "%s is a secret: a restore never writes a secret back (the owner keeps its current value)", f)
	}
	if known && !inSource && !inCurrent {
		return cur, audit.Errorf(audit.EINVALID, "%s is not a field of this resource: neither this version nor the current one has it", f)
	}
	var skipped []string
	sv = stripMasked(clone(sv), f, &skipped)
	if known && inSource == inCurrent && sameValue(sv, stripMasked(clone(cv), f, new([]string))) {
		if len(skipped) > 0 {
			return cur, audit.Errorf(audit.EINVALID, "%s: only its secrets differ from the current version, and a restore never writes a secret back", f)
		}
		return cur, audit.Errorf(audit.EINVALID, "%s already has this value in the current version: restoring it changes nothing", f)
	}
	// The current secrets under f stay the owner's: left out, and named.
	stripMasked(clone(cv), f, &skipped)
	*omitted = append(*omitted, skipped...)
	next, err := assign(cur, steps, sv, inSource)
	if err != nil {
		return cur, audit.Errorf(audit.EINVALID, "%s cannot be restored: %s in the current state", f, err)
	}
	return next, nil
}

// sameValue compares two decoded JSON values by meaning (as SameEvent
// does: 1 and 1.0 are the same number).
func sameValue(a, b any) bool {
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	return jsonenc.Same(ra, rb)
}

// clone returns a deep copy of a decoded JSON value, so that stripping
// secrets from it leaves the original whole.
func clone(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = clone(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = clone(x)
		}
		return out
	}
	return v
}
