package audit

// PersonalField returns the field of e at path ("actor.email"), a
// Personal field of EventFields (stream.MaskFields), for a stream to hash
// or drop it; nil for any other path.
func (e *Event) PersonalField(path string) *string {
	if f := LookupEventField(path); f != nil && f.Personal && f.Kind == KindString {
		return f.str(e)
	}
	return nil
}
