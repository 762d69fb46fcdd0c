package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/auditlog/auditlog/audit"
)

// Settings are one kind of destination's own configuration: the members
// of a stream's "destination" beside "kind", in a struct of the kind's
// package (streaming/webhook's Config, streaming/splunk's…), decoded
// from JSON with encoding/json's rules. Each kind registers its settings
// (Register); nothing in the domain names a kind.
//
// Decision: the rules every destination shares (an https endpoint that
// is no private address, a vendor's intake domains, header names) are
// here (CheckEndpoint, CheckIntake, CheckHeaders); the formats only one
// vendor has (a HEC token, a data collection rule's id) are the kind's
// own, beside its delivery, so that a destination is one package.
type Settings interface {
	// Kind is the registered name of the settings' kind.
	Kind() string
	// Check adds the settings' problems to fe, each under its JSON path
	// ("destination.url").
	Check(fe *audit.FieldErrors, rules Rules)
	// Redacted is a copy with every secret value replaced by
	// MaskedSecret (the API, the panel, logs and the tenant's log show
	// only that).
	Redacted() Settings
	// Keep puts back, into settings sent to replace old (of the same
	// kind), each secret sent back as MaskedSecret: a client sends back
	// what it read.
	Keep(old Settings)
	// Endpoint says where the events go, without any secret (%v, logs).
	Endpoint() string
}

// A KeyMaker is settings whose destination checks a signature under a
// key the service makes when the tenant gives none (the webhook's).
type KeyMaker interface {
	SigningKey() string
	SetSigningKey(key string)
}

// kind is a kind of destination as its package registered it.
type kind struct {
	// new returns empty settings of the kind (a pointer) to decode into.
	new func() Settings
	// fields are the JSON names of the settings' members.
	fields []string
}

var kinds sync.Map // name → kind

// Register makes a kind of destination known: a stream of it can be
// decoded, checked and shown. newSettings returns empty settings of the
// kind (a pointer to a struct); the kind's name is theirs (Settings.Kind),
// so it is written once. Each destination's package registers itself when
// it is imported; Register panics on a name registered twice, an empty
// name, or settings that are not a pointer to a struct.
func Register(newSettings func() Settings) {
	s := newSettings()
	t := reflect.TypeOf(s)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("stream: destination settings must be a pointer to a struct, not %v", t))
	}
	name := s.Kind()
	if name == "" {
		panic("stream: destination kind with no name: " + t.String())
	}
	if _, dup := kinds.LoadOrStore(name, kind{new: newSettings, fields: jsonNames(t.Elem())}); dup {
		panic("stream: destination kind registered twice: " + name)
	}
}

// Kinds are the registered kinds' names, sorted.
func Kinds() []string {
	var out []string
	kinds.Range(func(name, _ any) bool {
		out = append(out, name.(string))
		return true
	})
	sort.Strings(out)
	return out
}

// Members are the JSON names of a registered kind's settings (nil for a
// kind not registered): what the API's description of a destination
// must carry.
func Members(kind string) []string {
	k, _ := lookup(kind)
	return slices.Clone(k.fields)
}

func lookup(name string) (kind, bool) {
	k, ok := kinds.Load(name)
	if !ok {
		return kind{}, false
	}
	return k.(kind), true
}

// jsonNames are the JSON member names of a struct's exported fields.
func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			out = append(out, f.Name)
		default:
			out = append(out, name)
		}
	}
	return out
}

// Destination is where a stream delivers, and with what credentials:
// its kind and the kind's settings. On the wire it is one object, the
// kind beside the settings' members ({"kind":"webhook","url":…}).
// Secret members are write-only: Redacted masks them.
type Destination struct {
	Kind string
	// Settings are nil for a kind this build has not registered; what
	// was read is then kept as it was and written back unchanged.
	Settings Settings
	raw      json.RawMessage // the members of an unregistered kind
	unknown  []string        // members the kind's settings do not have
}

// NewDestination is the destination of s.
func NewDestination(s Settings) Destination { return Destination{Kind: s.Kind(), Settings: s} }

// MarshalJSON writes the kind and the settings' members as one object.
func (d Destination) MarshalJSON() ([]byte, error) {
	members := []byte(d.raw)
	if d.Settings != nil {
		var err error
		if members, err = json.Marshal(d.Settings); err != nil {
			return nil, err
		}
	}
	members = bytes.TrimSpace(members)
	if len(members) == 0 {
		members = []byte("{}")
	}
	if members[0] != '{' || members[len(members)-1] != '}' {
		// nil settings marshal to null; splicing that would write
		// {"kind":"webhook",null}.
		return nil, fmt.Errorf("stream: %s destination: settings are %.20s, not an object", d.Kind, members)
	}
	kind, _ := json.Marshal(d.Kind)
	out := append([]byte(`{"kind":`), kind...)
	if inner := bytes.TrimSpace(members[1 : len(members)-1]); len(inner) > 0 {
		out = append(append(out, ','), inner...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads the kind, then the members into the kind's
// settings. A member the settings do not have is kept aside for Check
// to name ("not used by webhook streams"); a member of the wrong type
// is an error naming it (*json.UnmarshalTypeError). A kind this build
// has not registered keeps its members as they are.
func (d *Destination) UnmarshalJSON(b []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	*d = Destination{}
	if raw, ok := members["kind"]; ok {
		if err := json.Unmarshal(raw, &d.Kind); err != nil {
			return &json.UnmarshalTypeError{Value: "non-string", Type: reflect.TypeFor[string](), Field: "kind"}
		}
		delete(members, "kind")
	}
	k, ok := lookup(d.Kind)
	if !ok {
		d.raw, _ = json.Marshal(members)
		return nil
	}
	for name := range members {
		if !slices.Contains(k.fields, name) {
			d.unknown = append(d.unknown, name)
			delete(members, name)
		}
	}
	sort.Strings(d.unknown)
	known, _ := json.Marshal(members)
	s := k.new()
	if err := json.Unmarshal(known, s); err != nil {
		return err
	}
	d.Settings = s
	return nil
}

// check adds the problems of d to fe: a kind this build has and the
// deployment delivers to, no member of another kind, and the kind's own
// rules.
func (d *Destination) check(fe *audit.FieldErrors, rules Rules) {
	k, ok := lookup(d.Kind)
	if !ok {
		fe.Add("destination.kind", "want one of %s", strings.Join(rules.kinds(), ", "))
		return
	}
	if why, off := rules.Off[d.Kind]; off {
		fe.Add("destination.kind", "%s: want one of %s", why, strings.Join(rules.kinds(), ", "))
	}
	for _, name := range d.unknown {
		fe.Add("destination."+name, "not used by %s streams", d.Kind)
	}
	if d.Settings == nil {
		d.Settings = k.new()
	}
	d.Settings.Check(fe, rules)
}

// redacted is d as it is shown: the settings' secrets masked (nothing
// of a kind this build cannot read).
func (d Destination) redacted() Destination {
	if d.Settings != nil {
		d.Settings = d.Settings.Redacted()
	}
	d.raw, d.unknown = nil, nil
	return d
}

// String keeps a stream's secrets out of any %v.
func (d Destination) String() string {
	if d.Settings == nil {
		return d.Kind
	}
	return fmt.Sprintf("%s %s", d.Kind, d.Settings.Endpoint())
}

// Mask is v as a secret is shown: MaskedSecret, or "" when unset.
func Mask(v string) string {
	if v == "" {
		return ""
	}
	return MaskedSecret
}

// Kept is v sent back in a reconfiguration: the stored value was when
// the client sent MaskedSecret.
func Kept(v, was string) string {
	if v == MaskedSecret {
		return was
	}
	return v
}
