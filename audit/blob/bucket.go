package blob

import "strings"

// What a bucket and a prefix must be, as every setting that takes one
// says it.
const (
	BucketRule = "want an S3 bucket name: 3 to 63 of a-z 0-9 . -, starting and ending with a letter or digit"
	PrefixRule = "want 1 to 200 of A-Z a-z 0-9 / _ . -, without leading or trailing / and without .."
)

// ValidBucket reports whether b is an S3 bucket name (BucketRule).
func ValidBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 || strings.Contains(b, "..") {
		return false
	}
	for i, r := range b {
		alnum := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		if !alnum && ((r != '.' && r != '-') || i == 0 || i == len(b)-1) {
			return false
		}
	}
	return true
}

// ValidPrefix reports whether p can start object keys.
func ValidPrefix(p string) bool {
	if p == "" || len(p) > 200 || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "..") || strings.Contains(p, "//") {
		return false
	}
	for _, r := range p {
		if !((r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || strings.ContainsRune("/_.-", r)) {
			return false
		}
	}
	return true
}
