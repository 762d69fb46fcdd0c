package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestMarshaledScalarIsWhatEncodingJSONWrites: a value MarshaledScalar
// takes is one encoding/json writes back byte for byte once decoded
// (numbers as json.Number, kept as written), and AppendMarshaled too.
func TestMarshaledScalarIsWhatEncodingJSONWrites(t *testing.T) {
	cases := []string{`true`, `false`, `null`, `0`, `-1.5e+3`, `12`, `01`, `1.`, `-`, `1 `, ` 1`, `""`, `"a b/c"`, `"<"`,
		`"a\"b"`, `"\u0041"`, "\"\x7f\"", "\"\x1f\"", `"é"`, `"`, `"a`, `tru`, `nul`, `[1]`, `{}`, `"a"b"`, `1e`, `-0`, `2E-7`}
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("0123456789-+.eE\"\\ <>&/aZ\x7f\x1f\xc3\xa9tfnrul")
	for range 50_000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	taken := 0
	for _, c := range cases {
		raw := []byte(c)
		if !MarshaledScalar(raw) {
			continue
		}
		taken++
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("%q taken, but encoding/json does not decode it whole: %v", c, err)
		}
		out, err := json.Marshal(v)
		if err != nil || !bytes.Equal(out, raw) {
			t.Fatalf("%q taken, but encoding/json writes %q", c, out)
		}
		if got := AppendMarshaled(nil, raw); !bytes.Equal(got, raw) {
			t.Fatalf("%q taken, but AppendMarshaled writes %q", c, got)
		}
	}
	if taken < 100 {
		t.Fatalf("only %d values taken: the comparison compared little", taken)
	}
}
