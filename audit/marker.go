package audit

import "strings"

// MaskPrefix starts every masked value: "masked:v1:" and a keyed hash.
// Two equal secrets of one tenant give the same marker, so a change stays
// visible as changed (or unchanged) without the value.
const MaskPrefix = "masked:v1:"

// markerHashLen is the length of a marker's hash: 18 bytes of
// HMAC-SHA-256 in unpadded base64url.
const markerHashLen = 24

// IsMarker reports whether s is a well-formed marker: MaskPrefix and
// exactly 24 characters of unpadded base64url. Only such a value is read
// as masked (by Masked, and by restores, which never write one back);
// "masked:v1:hunter2 in clear" is not one.
func IsMarker(s string) bool {
	h, ok := strings.CutPrefix(s, MaskPrefix)
	if !ok || len(h) != markerHashLen {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
