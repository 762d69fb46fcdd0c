package streaming

import (
	"fmt"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/internal/backoff"
)

// Outcome is what a destination's answer means for the stream, and what
// one Step did.
type Outcome int

// The outcomes of a delivery, and Idle, that of a step with nothing to
// deliver.
const (
	Accepted Outcome = iota // 2xx: the cursor moves past the batch
	Retry                   // 408, 425, 429, 5xx, or no answer: retried with backoff, the stream failing meanwhile
	Refused                 // 401, 403: the credentials are refused; the stream pauses and says why
	Rejected                // any other 4xx: the destination refuses this batch; its range is parked and retried apart
	Idle     Outcome = -1   // nothing to deliver: the cursor is at the log's last checkpoint, or the stream is paused
)

// Classify maps an HTTP status to its outcome, and reads Retry-After
// (seconds or an HTTP date, relative to now; 0 when absent or invalid).
func Classify(status int, retryAfter string, now time.Time) (Outcome, time.Duration) {
	wait := backoff.RetryAfter(retryAfter, now)
	switch {
	case status >= 200 && status < 300:
		return Accepted, 0
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return Refused, 0
	case status == http.StatusRequestTimeout || status == http.StatusTooEarly || status == http.StatusTooManyRequests || status >= 500:
		return Retry, wait
	}
	return Rejected, wait
}

// Backoff is the wait before attempt n (1-based) of a batch: 1 s
// doubling to max. (A destination's Retry-After, when it gave one, is the
// stream's rule: streaming.retryWait.)
func Backoff(n int, max time.Duration) time.Duration {
	d := time.Second
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}

// String names an outcome.
func (o Outcome) String() string {
	if s, ok := map[Outcome]string{Accepted: "accepted", Retry: "retry", Refused: "refused", Rejected: "rejected", Idle: "idle"}[o]; ok {
		return s
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}
