package stream_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// TestDestinationIsOneObjectOnTheWire: a destination is written as its
// kind beside its settings' members, and read back into the kind's own
// type, equal to what was written.
func TestDestinationIsOneObjectOnTheWire(t *testing.T) {
	d := newProbe(probe{URL: "https://siem.example.com/in", Headers: map[string]string{"X-Key": "k"}, Token: "t", Size: 3})
	b, err := json.Marshal(stream.Config{Name: "n", Destination: d})
	if err != nil {
		t.Fatal(err)
	}
	var flat struct {
		Destination map[string]any `json:"destination"`
	}
	if err := json.Unmarshal(b, &flat); err != nil || flat.Destination["kind"] != probeKind || flat.Destination["url"] != "https://siem.example.com/in" ||
		flat.Destination["size"] != float64(3) || len(flat.Destination) != 5 {
		t.Fatalf("written: %s %v", b, err)
	}
	var back stream.Config
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Destination, d) {
		t.Fatalf("read back: %+v %v, want %+v", back.Destination, err, d)
	}
	if b, _ := json.Marshal(stream.NewDestination(&probe{})); string(b) != `{"kind":"probe"}` {
		t.Fatalf("empty settings: %s", b)
	}
}

// TestDestinationMembersOfNoKindAreNamed: a member the kind's settings
// do not have is named by the check ("not used by probe streams"), each
// one; a member of the wrong type is an error naming it.
func TestDestinationMembersOfNoKindAreNamed(t *testing.T) {
	var c stream.Config
	raw := `{"name":"n","destination":{"kind":"probe","url":"https://siem.example.com/in","dcr":"x","bucket":"b"}}`
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	s := stream.Stream{Name: c.Name, Destination: c.Destination}
	err := s.Normalize(stream.Rules{})
	var fields []string
	for _, f := range audit.ErrorFields(err) {
		fields = append(fields, f.Field+": "+f.Message)
	}
	if !slices.Equal(fields, []string{"destination.bucket: not used by probe streams", "destination.dcr: not used by probe streams"}) {
		t.Fatalf("got %v", fields)
	}
	err = json.Unmarshal([]byte(`{"name":"n","destination":{"kind":"probe","size":"big"}}`), &c)
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) || typ.Field != "destination.size" {
		t.Fatalf("a string for a number: %v (%+v)", err, typ)
	}
	err = json.Unmarshal([]byte(`{"name":"n","destination":{"kind":7}}`), &c)
	if !errors.As(err, &typ) || typ.Field != "destination.kind" {
		t.Fatalf("a number for the kind: %v", err)
	}
}

// TestAKindThisBuildHasNotIsKeptAndRefused: a stored destination of a
// kind no package registered is read and written back unchanged (nothing
// of it is lost), shown without its members (they may be secret), and
// refused by the check naming the kinds there are.
func TestAKindThisBuildHasNotIsKeptAndRefused(t *testing.T) {
	raw := `{"kind":"kinesis","stream":"audit","key":"secret-key"}`
	var d stream.Destination
	if err := json.Unmarshal([]byte(raw), &d); err != nil || d.Kind != "kinesis" || d.Settings != nil {
		t.Fatalf("read: %+v %v", d, err)
	}
	if b, _ := json.Marshal(d); !jsonEqual(b, []byte(raw)) {
		t.Fatalf("written back: %s", b)
	}
	s := stream.Stream{Name: "n", Destination: d}
	if b, _ := json.Marshal(s.Redacted().Destination); string(b) != `{"kind":"kinesis"}` {
		t.Fatalf("shown: %s", b)
	}
	err := s.Normalize(stream.Rules{})
	if f := audit.ErrorFields(err); len(f) != 1 || f[0].Field != "destination.kind" || !strings.Contains(f[0].Message, probeKind) {
		t.Fatalf("checked: %v", err)
	}
}

// TestTheKeyIsMadeOnceAndSecretsKept: a destination that signs with a
// key the service makes (KeyMaker) gets one at creation when it has
// none; its configuration as shown, sent back, keeps every secret.
func TestTheKeyIsMadeOnceAndSecretsKept(t *testing.T) {
	made := strings.Repeat("m", 40)
	c := stream.Config{Name: "n", Destination: newProbe(probe{URL: "https://siem.example.com/in", Token: "tok"})}
	s, err := stream.NewStream("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", c, "", stream.Rules{}, func() string { return made }, fixedNow)
	if err != nil || probeOf(s.Destination).Key != made {
		t.Fatalf("new: %+v %v", s.Destination, err)
	}
	shown := s.Config()
	if err := s.Reconfigure(shown, stream.Rules{}, fixedNow); err != nil || probeOf(s.Destination).Key != made || probeOf(s.Destination).Token != "tok" {
		t.Fatalf("sent back as shown: %+v %v", s.Destination, err)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestNilSettingsAreRefusedNotSpliced: settings that marshal to anything
// but an object (a nil *Config is null) are an error naming the kind, not
// a destination written as {"kind":"probe",null}.
func TestNilSettingsAreRefusedNotSpliced(t *testing.T) {
	var nilProbe *probe
	b, err := json.Marshal(stream.Destination{Kind: probeKind, Settings: nilProbe})
	if err == nil || !strings.Contains(err.Error(), "probe destination") {
		t.Fatalf("nil settings: %s, %v; want an error naming the kind", b, err)
	}
}

// nameless is settings whose Kind is empty; misnamed are settings that
// are not a pointer to a struct.
type nameless struct{ probe }
type misnamed map[string]string

func (*nameless) Kind() string                          { return "" }
func (misnamed) Kind() string                           { return "misnamed" }
func (misnamed) Check(*audit.FieldErrors, stream.Rules) {}
func (m misnamed) Redacted() stream.Settings            { return m }
func (misnamed) Keep(stream.Settings)                   {}
func (misnamed) Endpoint() string                       { return "" }

// TestRegisterRefusesWhatItCannotName: the kind's name is its settings'
// own (written once), so a kind registered twice, one with no name and
// settings that are not a struct to decode into all panic at start-up.
func TestRegisterRefusesWhatItCannotName(t *testing.T) {
	for name, newSettings := range map[string]func() stream.Settings{
		"twice":   func() stream.Settings { return new(probe) },
		"no name": func() stream.Settings { return new(nameless) },
		"a map":   func() stream.Settings { return misnamed{} },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered, want a panic", name)
				}
			}()
			stream.Register(newSettings)
		}()
	}
	if kinds := stream.Kinds(); !slices.Equal(kinds, []string{probeKind}) {
		t.Fatalf("kinds after refusals: %v", kinds)
	}
}
