package sqlite

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// TestKeysSortAndReadBackAsTheirText: the key of a canonical id is 16
// bytes that turn back into the id, and keys sort as the ids' text does
// (the order of a page's ties, which Elasticsearch sorts by the text);
// any other spelling stays text, as it is. The UUIDs come from
// github.com/google/uuid, not from the code under test.
func TestKeysSortAndReadBackAsTheirText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ids []string
	for range 2000 {
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.UintN(256))
		}
		ids = append(ids, audit.IDPrefix+u.String())
	}
	ids = append(ids, audit.IDPrefix+"00000000-0000-0000-0000-000000000000", audit.IDPrefix+"ffffffff-ffff-ffff-ffff-ffffffffffff")
	for i, id := range ids {
		k, ok := idKey(id).([]byte)
		if !ok || len(k) != 16 || idOfKey(k) != id {
			t.Fatalf("%s: key %v reads back as %q", id, idKey(id), idOfKey(idKey(id)))
		}
		if i > 0 {
			prev := idKey(ids[i-1]).([]byte)
			if got, want := bytes.Compare(prev, k), strings.Compare(ids[i-1], id); got != want {
				t.Fatalf("%s and %s: keys compare %d, texts %d", ids[i-1], id, got, want)
			}
		}
	}
	for _, other := range []string{"", "evt_audit_", "x", "evt_audit_0A1B2C3D-0000-7000-8000-000000000000", "evt_audit_0a1b2c3d00007000800000000000000000",
		"evt_audit_0a1b2c3d-0000-7000-8000-00000000000g", "EVT_AUDIT_0a1b2c3d-0000-7000-8000-000000000000", "0a1b2c3d-0000-7000-8000-000000000000"} {
		if k, ok := idKey(other).(string); !ok || k != other || idOfKey(k) != other {
			t.Errorf("%q: key %v, want the text", other, idKey(other))
		}
	}
	if k, ok := uuidKey("0a1b2c3d-0000-7000-8000-000000000000").([]byte); !ok || uuidOfKey(k) != "0a1b2c3d-0000-7000-8000-000000000000" {
		t.Errorf("an actor's UUID: %v", uuidKey("0a1b2c3d-0000-7000-8000-000000000000"))
	}
	if k, ok := uuidKey("agent-7").(string); !ok || k != "agent-7" {
		t.Errorf("an actor id of no UUID: %v", uuidKey("agent-7"))
	}
}

// TestUUIDPrefixRangeHoldsThePrefixedKeys: the byte range of a prefix
// holds the key of every UUID whose text starts with it and of no other;
// a prefix no canonical UUID has (a capital, a hyphen out of place) has
// no range.
func TestUUIDPrefixRangeHoldsThePrefixedKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		var u uuid.UUID
		for i := range u {
			u[i] = byte(r.UintN(256))
		}
		text := u.String()
		prefix := text[:r.IntN(37)]
		lo, hi, ok := uuidPrefixRange(prefix)
		if !ok {
			t.Fatalf("%q: no range", prefix)
		}
		for range 20 {
			var v uuid.UUID
			for i := range v {
				v[i] = byte(r.UintN(256))
			}
			other := v.String()
			if r.IntN(2) == 0 { // one that shares the prefix
				other = prefix + other[len(prefix):]
			}
			k := uuidKey(other).([]byte)
			in := bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) <= 0
			if in != strings.HasPrefix(other, prefix) {
				t.Fatalf("prefix %q, %s: in the range %v", prefix, other, in)
			}
		}
	}
	for _, bad := range []string{"0A", "0a1b2c3d0", "0a1b-", "g", strings.Repeat("a", 37)} {
		if _, _, ok := uuidPrefixRange(bad); ok {
			t.Errorf("%q has a range", bad)
		}
	}
}
