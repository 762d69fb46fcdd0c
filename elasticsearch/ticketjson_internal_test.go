package elasticsearch

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// TestTicketIsEncodingJSONs: appendTicket writes the bytes encoding/json
// writes for the same ticket (the format the sealer reads), over refs
// with and without each optional member, strings that JSON escapes
// (HTML characters, controls, U+2028, invalid UTF-8), and no refs.
func TestTicketIsEncodingJSONs(t *testing.T) {
	odd := []string{"", "t1", "<a&b>", "quote\"back\\slash", "ctl\x01\x1f\n\t", "line\u2028sep\u2029", "bad\xff\xfeutf8", "ünï©ødé", "tenant-42"}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return odd[r.IntN(len(odd))] }
	bytesOf := func(n int) []byte {
		if r.IntN(3) == 0 {
			return nil
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}
	for i := range 500 {
		tk := ticket{Kind: pick(), At: r.Int64() - r.Int64(), N: r.IntN(2000)}
		if i%7 != 0 {
			tk.Refs = make([]ticketRef, r.IntN(5))
		}
		for j := range tk.Refs {
			ref := ticketRef{Tenant: pick(), ID: pick(), DocID: pick(), Index: pick(), Routing: pick(), Digest: bytesOf(32), Tag: bytesOf(21)}
			if r.IntN(2) == 0 {
				var h tlog.Hash
				copy(h[:], bytesOf(32))
				ref.Hash = &h
			}
			if r.IntN(5) == 0 {
				ref.Digest = []byte{}
			}
			tk.Refs[j] = ref
		}
		want, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendTicket(nil, tk); string(got) != string(want) {
			t.Fatalf("ticket %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
