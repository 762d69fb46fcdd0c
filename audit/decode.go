package audit

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// decodeFields decodes an event one field at a time and reports every
// field whose JSON type is wrong, and every unknown field. A problem with
// Field "" means data is not a JSON object at all.
func decodeFields(data []byte) (Event, FieldErrors) {
	var e Event
	var fe FieldErrors
	top, ok := object(data)
	if !ok {
		fe.Add("", "the event must be one JSON object")
		return e, fe
	}
	targets, nested := decodeTargets(&e)
	for _, k := range sortedKeys(top) {
		raw := top[k]
		switch {
		case targets[k] != nil:
			decodeInto(&fe, k, raw, targets[k])
		case nested[k] != nil:
			if jsonenc.IsNull(raw) {
				continue
			}
			sub, ok := object(raw)
			if !ok {
				fe.Add(k, "must be an object")
				continue
			}
			for _, sk := range sortedKeys(sub) {
				if dst := nested[k][sk]; dst != nil {
					decodeInto(&fe, k+"."+sk, sub[sk], dst)
				} else {
					fe.Add(k+"."+sk, "is not a known field")
				}
			}
		case k == "diff":
			e.Diff = decodeDiff(&fe, raw)
		default:
			fe.Add(k, "is not a known field")
		}
	}
	return e, fe
}

// decodeTargets are where each field of EventFields is decoded to, by
// its name at the top and in each nested object; the diff is decoded by
// decodeDiff.
func decodeTargets(e *Event) (map[string]any, map[string]map[string]any) {
	targets := make(map[string]any, len(EventFields))
	nested := map[string]map[string]any{}
	for i := range EventFields {
		f := &EventFields[i]
		switch p := f.Parent(); {
		case f.Kind == KindDiff:
		case p == "":
			targets[f.Name] = f.Ptr(e)
		default:
			if nested[p] == nil {
				nested[p] = map[string]any{}
			}
			nested[p][f.Key()] = f.Ptr(e)
		}
	}
	return targets, nested
}

func decodeDiff(fe *FieldErrors, raw json.RawMessage) map[string]Change {
	if jsonenc.IsNull(raw) {
		return nil
	}
	entries, ok := object(raw)
	if !ok {
		fe.Add("diff", "must be an object mapping each changed field to {\"from\", \"to\"}")
		return nil
	}
	diff := make(map[string]Change, len(entries))
	for _, name := range sortedKeys(entries) {
		parts, ok := object(entries[name])
		if !ok {
			fe.Add("diff."+name, "must be an object with both \"from\" and \"to\" (null for absent)")
			continue
		}
		var c Change
		for _, pk := range sortedKeys(parts) {
			switch pk {
			case "from":
				c.From = parts[pk]
			case "to":
				c.To = parts[pk]
			default:
				fe.Add("diff."+name+"."+pk, "is not a known field (only \"from\" and \"to\")")
			}
		}
		diff[name] = c
	}
	return diff
}

func decodeInto(fe *FieldErrors, field string, raw json.RawMessage, dst any) {
	err := json.Unmarshal(raw, dst)
	if err == nil {
		return
	}
	var ae *Error
	if errors.As(err, &ae) {
		fe.Add(field, "%s", ae.Message)
		return
	}
	switch dst.(type) {
	case *bool:
		fe.Add(field, "must be a boolean")
	default:
		fe.Add(field, "must be a string")
	}
}

func object(raw []byte) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false
	}
	return m, true
}
