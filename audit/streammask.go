package audit

// StreamMaskFields are the fields of personal data a stream can hash or
// drop: the Personal fields of EventFields (who acted, from where, with
// what), so that a personal field added there can be masked at once
// (issue 54: a new personal field could not be).
var StreamMaskFields = fieldNames(func(f *EventField) bool { return f.Personal })

// PersonalField returns the field of e at path ("actor.email"), one of
// StreamMaskFields, for a stream to hash or drop it; nil for any other
// path.
func (e *Event) PersonalField(path string) *string {
	if f := LookupEventField(path); f != nil && f.Personal && f.Kind == KindString {
		return f.str(e)
	}
	return nil
}
