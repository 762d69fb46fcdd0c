package streaming

import (
	"testing"
	"time"
)

// TestRetryWait: a destination's Retry-After is honoured up to
// MaxRetryAfter, apart from the backoff's bound; without one, 1 s
// doubling to MaxBackoff.
func TestRetryWait(t *testing.T) {
	for _, c := range []struct {
		n          int
		retryAfter time.Duration
		want       time.Duration
	}{
		{1, 0, time.Second}, {3, 0, 4 * time.Second}, {20, 0, MaxBackoff},
		{1, 30 * time.Second, 30 * time.Second}, {1, 5 * time.Minute, 5 * time.Minute}, {7, 2 * time.Hour, MaxRetryAfter},
	} {
		if got := retryWait(c.n, c.retryAfter); got != c.want {
			t.Errorf("attempt %d, Retry-After %s: %s, want %s", c.n, c.retryAfter, got, c.want)
		}
	}
}
