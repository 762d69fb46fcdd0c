package streaming

import (
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// TestEveryPersonalFieldIsMasked (issue 54): a stream can hash or drop
// each of stream.MaskFields (every Personal field of
// audit.EventFields), in both formats: the clear value appears nowhere
// in what is sent; hashed, its hash does.
func TestEveryPersonalFieldIsMasked(t *testing.T) {
	e := schematest.Full(t)
	key := []byte("the-test-deployment-masking-key!")
	for _, format := range []string{stream.FormatEvent, stream.FormatOCSF} {
		for _, mode := range []string{stream.MaskHash, stream.MaskDrop} {
			st := &stream.Stream{ID: "3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b", TenantID: e.TenantID, Format: format, Mask: map[string]string{}}
			for _, f := range stream.MaskFields {
				st.Mask[f] = mode
			}
			out, err := encode(st, key, e, 7)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range stream.MaskFields {
				clear := *e.PersonalField(f)
				if strings.Contains(string(out), clear) {
					t.Errorf("%s, %s: %s's value %q is sent in clear:\n%s", format, mode, f, clear, out)
				}
				if mode == stream.MaskHash && !strings.Contains(string(out), hash(key, clear)) {
					t.Errorf("%s, hash: %s's hash is not sent:\n%s", format, f, out)
				}
			}
		}
	}
	if len(stream.MaskFields) < 4 || e.PersonalField("actor.role") != nil || e.PersonalField("resource.id") != nil {
		t.Fatalf("the personal fields: %v", stream.MaskFields)
	}
}
