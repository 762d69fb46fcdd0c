package audit

import (
	"reflect"
	"strings"
)

// StreamMaskFields are the fields of personal data a stream can hash or
// drop: every text field of the actor but its role (who acted, from
// where, with what), found on the type, so that a field added to Actor
// can be masked at once (issue 54: a new personal field could not be).
var StreamMaskFields = actorFields(func(name string) bool { return name != "role" })

// actorFields lists the "actor.<json name>" of Actor's string fields that
// keep says to.
func actorFields(keep func(name string) bool) []string {
	var out []string
	t := reflect.TypeFor[Actor]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() == reflect.String && keep(name) {
			out = append(out, "actor."+name)
		}
	}
	return out
}

// PersonalField returns the field of a at path ("actor.email"), one of
// StreamMaskFields, for a stream to hash or drop it; nil for any other
// path.
func (a *Actor) PersonalField(path string) *string {
	name, ok := strings.CutPrefix(path, "actor.")
	if !ok || name == "role" {
		return nil
	}
	v := reflect.ValueOf(a).Elem()
	for i := range v.NumField() {
		tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if tag == name && v.Field(i).Kind() == reflect.String {
			return v.Field(i).Addr().Interface().(*string)
		}
	}
	return nil
}
