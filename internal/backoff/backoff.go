// Package backoff is jittered exponential backoff ("full jitter"), for
// retrying against a dependency that is down, for as long as it takes.
package backoff

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Backoff yields growing, jittered delays between Min and Max.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// New returns a backoff between min and max. A min below a millisecond is
// a millisecond, and a max below min is min.
func New(min, max time.Duration) *Backoff {
	min = max0(min, time.Millisecond)
	return &Backoff{Min: min, Max: max0(max, min), cur: min}
}

func max0(a, b time.Duration) time.Duration {
	if a < b {
		return b
	}
	return a
}

// Next returns the next delay, drawn uniformly from Min to the current
// ceiling (both included): the ceiling starts at Min and doubles up to
// Max, so every delay is within Min..Max.
func (b *Backoff) Next() time.Duration {
	if b.cur < b.Min {
		b.cur = b.Min
	}
	d := b.Min + time.Duration(rand.Int64N(int64(b.cur-b.Min)+1))
	b.cur = min(b.cur*2, b.Max)
	return d
}

// Reset starts over from Min.
func (b *Backoff) Reset() { b.cur = b.Min }

// Sleep waits d or until ctx ends; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Retry runs f until it returns nil or ctx ends, sleeping b.Next()
// between attempts and telling onErr of each failure. It returns ctx's
// error joined with the last failure when ctx ends first.
func Retry(ctx context.Context, b *Backoff, onErr func(error), f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		if onErr != nil {
			onErr(err)
		}
		if !Sleep(ctx, b.Next()) {
			return &retryError{ctx: ctx.Err(), last: err}
		}
	}
}

type retryError struct{ ctx, last error }

func (e *retryError) Error() string   { return e.ctx.Error() + " (last error: " + e.last.Error() + ")" }
func (e *retryError) Unwrap() []error { return []error{e.ctx, e.last} }

// RetryAfter reads a Retry-After header's value: seconds, or an HTTP date
// relative to now; 0 when absent, invalid or past.
func RetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
