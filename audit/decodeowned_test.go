package audit_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestDecodeEventOwnedIsDecodeEvent: the indexer's decode of a message it
// owns answers as DecodeEvent does, event and error, for the generator's
// events, each with a byte changed, an oversized one and a refused one,
// whatever the destination held before;
// and DecodeEvent's event does not change when its input is written
// afterwards (it is for buffers that are reused).
func TestDecodeEventOwnedIsDecodeEvent(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	g := gen.New(gen.Config{Seed: 5, Tenants: 3, WithIDs: true}, 500)
	var inputs [][]byte
	for i := range 500 {
		b, _ := json.Marshal(g.Next())
		inputs = append(inputs, b)
		changed := bytes.Clone(b)
		changed[(i*37)%len(changed)] ^= byte(1 + i%7)
		inputs = append(inputs, changed)
	}
	inputs = append(inputs, []byte(`{"id":"x"}`), bytes.Repeat([]byte(" "), audit.MaxEventBytes+1), nil)
	for _, in := range inputs {
		want, wantErr := audit.DecodeEvent(in, now)
		got := audit.Event{ID: "left from the slot's last event", Reason: "x"}
		gotErr := audit.DecodeEventOwned(&got, bytes.Clone(in), now)
		if !reflect.DeepEqual(got, want) || errText(gotErr) != errText(wantErr) {
			t.Fatalf("%q:\nowned  %#v %v\ncopied %#v %v", in, got, gotErr, want, wantErr)
		}
		if wantErr != nil {
			continue
		}
		// Raw values may be parts of the input: none may be appended into
		// it (the input is the message dead-lettered as it came).
		raws := []json.RawMessage{got.Before, got.After}
		for _, c := range got.Diff {
			raws = append(raws, c.From, c.To)
		}
		for _, r := range raws {
			if cap(r) != len(r) {
				t.Fatalf("%q: a raw value of the owned decode has room to grow into its input: %q", in, r)
			}
		}
		for i := range in {
			in[i] = 'x'
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeEvent's event changed with its input: %#v", want)
		}
	}
}

// TestDecodeEventOwnedCopiesNothing: what the owned decode buys, two
// allocations fewer an event (the copy its strings would share, and the
// event itself, decoded where the caller keeps it).
func TestDecodeEventOwnedCopiesNothing(t *testing.T) {
	now := time.Now()
	b, _ := json.Marshal(gen.New(gen.Config{Seed: 6, Tenants: 1, WithIDs: true}, 1).Next())
	copied := testing.AllocsPerRun(200, func() { _, _ = audit.DecodeEvent(b, now) })
	var e audit.Event
	owned := testing.AllocsPerRun(200, func() { _ = audit.DecodeEventOwned(&e, b, now) })
	if owned > copied-2 {
		t.Fatalf("DecodeEventOwned allocates %.0f times an event, DecodeEvent %.0f: want two fewer", owned, copied)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
