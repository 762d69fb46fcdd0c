package audit

import "github.com/auditlog/auditlog/internal/jsonenc"

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
			same = jsonenc.Same(f.Raw(a), f.Raw(b))
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
		if !ok || !jsonenc.Same(ca.From, cb.From) || !jsonenc.Same(ca.To, cb.To) {
			return false
		}
	}
	return true
}
