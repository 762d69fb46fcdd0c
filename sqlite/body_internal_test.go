package sqlite

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestBodiesRoundTripSmaller: every generated event's stored JSON comes
// back byte for byte from its packed body, which is smaller; the JSON
// itself (a row written before compression, or by hand) reads as it is.
func TestBodiesRoundTripSmaller(t *testing.T) {
	// Another seed than the dictionary's: events it never saw.
	g := gen.New(gen.Config{Seed: 7, Tenants: 5, WithIDs: true}, 2000)
	var raw, packed int
	for range 2000 {
		e := g.Next()
		js, err := e.AppendStoredJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		body := packBody(nil, js)
		got, err := unpackBody(body)
		if err != nil || !bytes.Equal(got, js) {
			t.Fatalf("event %s: unpacked %q (%v), want %q", e.ID, got, err, js)
		}
		if same, err := unpackBody(js); err != nil || !bytes.Equal(same, js) {
			t.Fatalf("the JSON itself read as %q (%v)", same, err)
		}
		raw, packed = raw+len(js), packed+len(body)
	}
	t.Logf("%d bytes of JSON packed into %d (%.0f%%)", raw, packed, 100*float64(packed)/float64(raw))
	if packed*2 > raw {
		t.Fatalf("packed %d bytes of JSON into %d: not half", raw, packed)
	}
}

// TestBodiesThatDoNotUnpackAreNamed: a body of no known encoding, a
// frame cut short or altered, and one that would expand past the bound
// are each an EINVALID error naming why, never a panic or a huge
// allocation; decodeBody makes them the row's Err.
func TestBodiesThatDoNotUnpackAreNamed(t *testing.T) {
	js := []byte(`{"id":"evt_1","tenantId":"t","action":"create"}`)
	good := packBody(nil, js)
	altered := bytes.Clone(good)
	altered[len(altered)/2] ^= 0xff
	bomb := packBody(nil, []byte(`{"reason":"`+strings.Repeat("a", maxBodyJSON)+`"}`))
	for name, c := range map[string]struct {
		body []byte
		says string
	}{
		"empty":            {nil, "empty"},
		"unknown encoding": {[]byte{0x7f, 'x'}, "no known encoding (first byte 0x7f)"},
		"cut short":        {good[:len(good)-4], "does not decompress"},
		"header only":      {good[:2], "does not decompress"},
		"too large":        {bomb, "does not decompress"},
	} {
		_, err := unpackBody(c.body)
		if audit.ErrorCode(err) != audit.EINVALID || !strings.Contains(audit.ErrorMessage(err), c.says) {
			t.Errorf("%s: %v, want EINVALID saying %q", name, err, c.says)
		}
		if row := decodeBody(rowKeys{id: "evt_1", tenant: "t"}, c.body); row.Err == nil {
			t.Errorf("%s: decodeBody gave no Err", name)
		}
	}
	if len(bomb) > 4096 {
		t.Fatalf("the bomb is %d bytes: not a bomb", len(bomb))
	}
	// An altered frame either fails or gives other bytes, never the
	// event as it was: the row's checks (its JSON, its leaf) do the rest.
	if got, err := unpackBody(altered); err == nil && bytes.Equal(got, js) {
		t.Fatal("an altered frame unpacked to the original event")
	}
	var v map[string]any
	if got, err := unpackBody(good); err != nil || json.Unmarshal(got, &v) != nil {
		t.Fatalf("the good body: %s %v", got, err)
	}
}
