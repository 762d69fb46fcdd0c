package audit

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
)

// checkFast holds fastDecode to go-json-experiment/json with the strict
// options: an input fastDecode takes, the library takes too, into the
// same event (nil and empty values told apart).
func checkFast(t *testing.T, data []byte) bool {
	t.Helper()
	var fast, ref Event
	if !fastDecode(data, &fast) {
		return false
	}
	if err := jsonv2.Unmarshal(data, &ref, strictJSON); err != nil {
		t.Fatalf("fastDecode took %q, which the strict library refuses: %v", data, err)
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Fatalf("%q:\nfastDecode %#v\nlibrary    %#v", data, fast, ref)
	}
	return true
}

// fastCorners are inputs at the edge of what fastDecode takes.
var fastCorners = []string{
	`{}`, ` { } `, `{"diff":{}}`, `{"diff":null}`, `{"diff":{"a":{}}}`, `{"diff":{"a":{"from":null,"to":" 1 "}}}`,
	`{"diff":{"a":{"from":1,"from":2}}}`, `{"diff":{"a":{"from":1},"a":{"to":2}}}`, `{"diff":{"a":{"x":1}}}`,
	`{"before":{"a" : [1, 2]} }`, `{"before":null}`, `{"before":{"k":1,"k":2}}`, `{"before":"\ud800"}`,
	`{"before":"\ud83d\ude00"}`, `{"before":-0.5e+10}`, `{"before":01}`, `{"before":1.}`, `{"before":.5}`,
	`{"before":[1,]}`, `{"before":{"a":1,}}`, `{"id":"a",}`, `{,"id":"a"}`, `{"id":"a""tenantId":"b"}`,
	`{"id":"a\u00e9\n\"x\""}`, `{"id":"a\x"}`, `{"id":"\u0000"}`, "{\"id\":\"\x01\"}", "{\"id\":\"\xff\"}",
	"{\"id\":\"\xed\xa0\x80\"}", `{"id":null}`, `{"id":1}`, `{"\u0069d":"x"}`, `{"ID":"x"}`, `{"id":"a","id":"b"}`,
	`{"actor":{"id":"a"},"actor":{"ip":"b"}}`, `{"actor":{"id":"a","id":"b"}}`, `{"actor":null}`, `{"actor":{}}`,
	`{"crossTenant":true}`, `{"crossTenant":truex}`, `{"crossTenant":null}`, `{"crossTenant":false,"crossTenant":true}`,
	`{"timestamp":"2026-11-21T09:30:12.345Z"}`, `{"timestamp":"2026-11-21T09:30:12.345+02:00"}`,
	`{"timestamp":"2026-13-21T09:30:12.345Z"}`, `{"timestamp":"2026-11-21"}`, `{"timestamp":null}`,
	`{"timestamp":"2026-11-21T09:30:12.345\u005a"}`, `{"id":"a"} x`, `{"id":"a"}{}`, `[]`, `"x"`, ``, `{`,
	"{\"id\":\"a\"}\n\t ", "{\"id\":\"abcdefghijk\x01lmnopqrstuvwxyz\"}", "{\"id\":\"abcdefghijk\xfflmnopqrstuvwxyz\"}",
	"{\"id\":\"abcdefghijk\\\"lmnopqrstuvwxyz\"}", "{\"id\":\"abcdefghijk\x7flmnopqrstuvwxyz\"}", `{"reason":"<b>&amp;</b>"}`, `{"diff":{"é":{"to":"ü"}}}`, "{\"diff\":{\"\xff\":{}}}",
}

func TestFastDecodeIsTheStrictLibrary(t *testing.T) {
	for _, c := range fastCorners {
		checkFast(t, []byte(c))
	}
}

// TestFastDecodeTakesTheCommonShape: the producers' events (the spec's,
// the generator's) take the fast path, each decoded as the library
// decodes it, and so does each with one byte changed whenever
// fastDecode still takes it.
func TestFastDecodeTakesTheCommonShape(t *testing.T) {
	events := sampleEventJSON(t)
	rng := rand.New(rand.NewPCG(5, 53))
	taken := 0
	for _, data := range events {
		if !checkFast(t, data) {
			t.Fatalf("the common shape %s is not taken", data)
		}
		for range 200 {
			mutated := bytes.Clone(data)
			mutated[rng.IntN(len(mutated))] = "\"\\{}[],:0-.eEtnu \xff\xc3a"[rng.IntN(19)]
			if checkFast(t, mutated) {
				taken++
			}
		}
	}
	if taken == 0 {
		t.Fatal("no changed event was taken: the comparison compared nothing")
	}
}

func sampleEventJSON(t testing.TB) [][]byte {
	var out [][]byte
	large := fastSample() // beyond shareUpTo: its strings copied each
	large.Reason = strings.Repeat("a reason é ", 300)
	for _, e := range []Event{fastSample(), {ID: "evt_audit_x", Diff: map[string]Change{}}, large} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		var indented bytes.Buffer
		_ = json.Indent(&indented, b, "", "  ")
		out = append(out, indented.Bytes())
	}
	return out
}

func fastSample() Event {
	return Event{
		ID: "evt_audit_01a160e8-5000-7552-a8c7-e065b9749f79", Timestamp: NewTimestamp(MinTimestamp),
		TenantID: "2421462c-9494-48a5-a979-5caad269ca3d",
		Actor: Actor{ID: "49bc7379-7f23-4166-86ba-e72b00be0315", Email: "paula.1@acme-contact.example", Role: "admin",
			IP: "100.9.165.39", UserAgent: `=HYPERLINK("http://evil.example","click") é`},
		Action: ActionUpdate, Resource: Resource{Type: "queue", ID: "fcccc6c1-fbef-4155-8e94-6dff6197cbba"},
		Diff: map[string]Change{"name": {From: json.RawMessage(`"support"`), To: json.RawMessage(`null`)},
			"timeout": {From: json.RawMessage(`30`), To: json.RawMessage(`-4.5e3`)}},
		Category: CategoryConfiguration, Outcome: OutcomeSuccess, Reason: "a <b>", RequestID: "req_1",
		Before: json.RawMessage(`{"name":"support","tags":["a",{"b":[true,false,null]}]}`), After: json.RawMessage(`{"name":null}`),
		RestoredFrom: "rr", CrossTenant: true,
	}
}

// FuzzFastDecode holds fastDecode to go-json-experiment/json.
func FuzzFastDecode(f *testing.F) {
	for _, data := range sampleEventJSON(f) {
		f.Add(data)
	}
	for _, c := range fastCorners {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFast(t, data) })
}

// BenchmarkStrictDecode: fastDecode beside the strict library on the
// generator's kind of events (the spec sample and its indented form).
func BenchmarkStrictDecode(b *testing.B) {
	events := sampleEventJSON(b)
	b.Run("fastDecode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e Event
			if !fastDecode(events[i%len(events)], &e) {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("json-v2", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e Event
			if err := jsonv2.Unmarshal(events[i%len(events)], &e, strictJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
}
