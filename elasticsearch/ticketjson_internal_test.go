package elasticsearch

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// oddRefs are refs over strings JSON escapes (HTML characters, controls,
// U+2028, invalid UTF-8), with and without each optional member, document
// ids of each kind (the event id, tenant:id, another) and repeated
// tenants, indices and routings.
func oddRefs(r *rand.Rand, n int) []ticketRef {
	odd := []string{"", "t1", "<a&b>", "quote\"back\\slash", "ctl\x01\x1f\n\t", "line\u2028sep\u2029", "bad\xff\xfeutf8", "ünï©ødé", "tenant-42", strings.Repeat("long", 100)}
	pick := func() string { return odd[r.IntN(len(odd))] }
	bytesOf := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}
	refs := make([]ticketRef, n)
	for j := range refs {
		ref := ticketRef{Tenant: pick(), ID: pick(), DocID: pick(), Index: pick(), Routing: pick()}
		switch r.IntN(3) {
		case 0:
			ref.DocID = ref.ID
		case 1:
			ref.DocID = ref.Tenant + ":" + ref.ID
		}
		if r.IntN(3) > 0 {
			ref.Digest = bytesOf(32)
			if r.IntN(4) > 0 {
				ref.Tag = bytesOf(1 + r.IntN(40))
			}
		}
		refs[j] = ref
	}
	return refs
}

// TestTicketRefsReadBackAsWritten: a ticket appendTicket wrote is valid
// JSON whose refs read back equal to those written, over odd refs and
// none.
func TestTicketRefsReadBackAsWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		refs := oddRefs(r, r.IntN(6))
		var tk ticket
		raw := appendTicket(nil, int64(i)-250, refs)
		if err := json.Unmarshal(raw, &tk); err != nil {
			t.Fatalf("ticket %d does not decode: %v\n%s", i, err, raw)
		}
		if tk.Kind != "ticket" || tk.At != int64(i)-250 || tk.N != len(refs) {
			t.Fatalf("ticket %d: kind %q at %d n %d", i, tk.Kind, tk.At, tk.N)
		}
		got, err := ticketRefs(tk.Refs)
		if err != nil {
			t.Fatalf("ticket %d: %v", i, err)
		}
		if len(refs) == 0 {
			refs = nil
		}
		if !reflect.DeepEqual(got, refs) {
			t.Fatalf("ticket %d:\n got %+v\nwant %+v", i, got, refs)
		}
	}
}

// TestTicketRefsOfTheFormerFormatStillRead: a ticket written as an array
// of objects (before the packed form; still queued at an upgrade) reads
// as it did, its leaf hash with it.
func TestTicketRefsOfTheFormerFormatStillRead(t *testing.T) {
	h := tlog.Hash{1, 2, 3}
	refs := []ticketRef{{Tenant: "t1", ID: "e1", DocID: "e1", Index: "ix", Hash: &h, Digest: make([]byte, 32), Tag: []byte("tag")}, {Tenant: "t1", ID: "e2", DocID: "t1:e2", Routing: "t1"}}
	raw, _ := json.Marshal(map[string]any{"kind": "ticket", "at": 1, "n": 2, "refs": refs})
	var tk ticket
	if err := json.Unmarshal(raw, &tk); err != nil {
		t.Fatal(err)
	}
	got, err := ticketRefs(tk.Refs)
	if err != nil || !reflect.DeepEqual(got, refs) {
		t.Fatalf("got %+v, %v; want %+v", got, err, refs)
	}
}

// TestCutPackedRefsAreRefused: every packed ticket cut short is refused
// or, cut at a ref's end, reads fewer refs than it says (the sealer
// checks the count); none panics or reads a ref that was not written.
func TestCutPackedRefsAreRefused(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	refs := oddRefs(r, 8)
	packed := packRefs(nil, refs)
	for n := range len(packed) {
		got, err := unpackRefs(packed[:n])
		if err == nil && len(got) >= len(refs) {
			t.Fatalf("cut at %d of %d: read %d refs, no error", n, len(packed), len(got))
		}
		for i := range got {
			if err == nil && !reflect.DeepEqual(got[i], refs[i]) {
				t.Fatalf("cut at %d: ref %d reads %+v, was %+v", n, i, got[i], refs[i])
			}
		}
	}
	if _, err := unpackRefs(append([]byte{2}, packed[1:]...)); err == nil {
		t.Fatal("another version's packed refs read")
	}
}
