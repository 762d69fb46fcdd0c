package audit

import (
	"strings"
	"testing"
)

// toLower must give what strings.ToLower gives, on its fast path (no
// upper case, ASCII) and off it.
func TestToLowerIsStringsToLower(t *testing.T) {
	for _, s := range []string{"", "abc", "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b", "0B6F5D3E-8C1A-4F7E-9A52-3C1D2E4F5A6B",
		"@[`{", "Z", "A", "zÉ", "é", "\xff", "İstanbul", "ǅ", "a\x00b"} {
		if got, want := toLower(s), strings.ToLower(s); got != want {
			t.Errorf("toLower(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzToLower(f *testing.F) {
	f.Add("0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b")
	f.Add("Évian")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := toLower(s), strings.ToLower(s); got != want {
			t.Errorf("toLower(%q) = %q, want %q", s, got, want)
		}
	})
}
