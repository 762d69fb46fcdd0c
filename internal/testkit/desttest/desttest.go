// Package desttest is the conformance suite of stream destinations
// (issue 54): every destination under streaming/ runs it against its test
// receiver, so that what an answer means for the stream (deliver, retry,
// pause, park), the limits of one request and the refusal of private
// addresses hold alike for each, as storetest holds the stores.
package desttest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/internal/testkit/batchtest"
	"github.com/auditlog/auditlog/streaming"
)

// Target is one destination pointed at a running test receiver.
type Target struct {
	Dest streaming.Destination
	// Config is the stream's destination, with credentials the receiver
	// takes; Refused the same with credentials it refuses.
	Config, Refused stream.Destination
	// Held returns the leaf indexes of the events the receiver holds, in
	// order of arrival.
	Held func() []uint64
	// Fail queues answers the receiver gives to the next deliveries
	// instead of taking them: an HTTP destination's.
	Fail func(answers ...func(http.ResponseWriter))
	// Break makes the next write of a destination that is no HTTP
	// receiver (S3: the deployment's own server, no tenant's endpoint)
	// fail as an unavailable store does.
	Break func()
}

// Kind is a destination kind under the suite.
type Kind struct {
	// Start starts a receiver (closed when t ends) and returns the
	// destination pointed at it, its HTTP client built with allowPrivate
	// (the receiver listens on the loopback address).
	Start func(t *testing.T, allowPrivate bool) Target
	// Big is how many events the large batch holds: more than the
	// receiver takes in one request where it has limits (which it
	// enforces with 413 or 400, as the vendor does).
	Big int
	// Refuses are the 4xx answers beyond 401 and 403 the kind reads as
	// its configuration refused (the stream pauses) rather than this
	// batch (Sentinel: 404, no such rule).
	Refuses []int
}

// Run runs the suite on k: every case on an HTTP destination; on one
// writing to the deployment's own store (Target.Break set, no Fail) the
// delivery cases and a failing store, as answers, redirects and private
// addresses are those of a tenant's endpoint.
func Run(t *testing.T, k Kind) {
	t.Run("DeliversEveryEventOnceInOrder", func(t *testing.T) { delivers(t, k) })
	t.Run("AnEmptyBatchSendsNothing", func(t *testing.T) { empty(t, k) })
	if probe := k.Start(t, true); probe.Fail == nil {
		if probe.Break == nil {
			t.Fatal("a destination with neither Fail nor Break")
		}
		t.Run("RetriesWhenTheStoreFails", func(t *testing.T) { storeFails(t, k) })
		return
	}
	t.Run("RetriesWhatTheReceiverCannotTakeNow", func(t *testing.T) { retries(t, k) })
	t.Run("PausesOnRefusedCredentials", func(t *testing.T) { pauses(t, k) })
	t.Run("ParksABatchTheReceiverRejects", func(t *testing.T) { parks(t, k) })
	t.Run("FollowsNoRedirect", func(t *testing.T) { redirects(t, k) })
	t.Run("NoAnswerIsARetry", func(t *testing.T) { noAnswer(t, k) })
	t.Run("ReachesNoPrivateAddress", func(t *testing.T) { private(t, k) })
}

// send sends b to x's destination d.
func send(x Target, d stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return x.Dest.Send(ctx, d, b)
}

// span is from, from+1, … n of them.
func span(from uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = from + uint64(i)
	}
	return out
}

// delivers: a batch larger than one request of the receiver is accepted
// only once every event is held, each once, in order.
func delivers(t *testing.T, k Kind) {
	x := k.Start(t, true)
	o, _, reason, err := send(x, x.Config, batchtest.Big("t-1", 40, k.Big))
	if o != streaming.Accepted || err != nil {
		t.Fatalf("%s %q %v", o, reason, err)
	}
	if got := x.Held(); !slices.Equal(got, span(40, k.Big)) {
		t.Fatalf("the receiver holds %d events, want leaves 40 to %d once each in order", len(got), 40+k.Big-1)
	}
}

// empty: a batch the filter emptied is accepted with no request.
func empty(t *testing.T, k Kind) {
	x := k.Start(t, true)
	if o, _, _, err := send(x, x.Config, streaming.Batch{TenantID: "t-1", StreamID: "s-1", From: 3, To: 9}); o != streaming.Accepted || err != nil {
		t.Fatalf("%s %v", o, err)
	}
	if got := x.Held(); len(got) != 0 {
		t.Fatalf("held %v", got)
	}
}

// storeFails: a write that fails is a retry, with the error; the same
// batch sent again is then held once.
func storeFails(t *testing.T, k Kind) {
	x := k.Start(t, true)
	b := batchtest.Big("t-1", 7, 3)
	x.Break()
	if o, _, reason, err := send(x, x.Config, b); o != streaming.Retry || err == nil || reason == "" {
		t.Fatalf("%s %q %v, want a retry naming the failure", o, reason, err)
	}
	if o, _, reason, err := send(x, x.Config, b); o != streaming.Accepted || err != nil {
		t.Fatalf("again: %s %q %v", o, reason, err)
	}
	if got := x.Held(); !slices.Equal(got, span(7, 3)) {
		t.Fatalf("held %v after the retry", got)
	}
}

// status answers code, with Retry-After when given.
func status(code int, retryAfter string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"error":"` + http.StatusText(code) + `"}`))
	}
}

// retries: 408, 425, 429 and 5xx are retried, after the Retry-After the
// receiver gave; the same batch sent again is then held once.
func retries(t *testing.T, k Kind) {
	x := k.Start(t, true)
	b := batchtest.Big("t-1", 7, 3)
	for _, c := range []struct {
		code       int
		retryAfter string
		wait       time.Duration
	}{{503, "7", 7 * time.Second}, {429, "120", 2 * time.Minute}, {500, "", 0}, {502, "", 0}, {408, "", 0}, {425, "", 0}} {
		x.Fail(status(c.code, c.retryAfter))
		if o, wait, _, _ := send(x, x.Config, b); o != streaming.Retry || wait != c.wait {
			t.Fatalf("%d: %s after %s, want retry after %s", c.code, o, wait, c.wait)
		}
	}
	if got := x.Held(); len(got) != 0 {
		t.Fatalf("held %v while the receiver failed", got)
	}
	if o, _, reason, err := send(x, x.Config, b); o != streaming.Accepted || err != nil {
		t.Fatalf("again: %s %q %v", o, reason, err)
	}
	if got := x.Held(); !slices.Equal(got, span(7, 3)) {
		t.Fatalf("held %v after the retry", got)
	}
}

// pauses: 401 and 403 (and the kind's Refuses), and credentials the
// receiver refuses, pause the stream with a reason naming the answer. A
// destination may fetch a new token and try once more (Sentinel): the
// receiver answers the same three times.
func pauses(t *testing.T, k Kind) {
	b := batchtest.Big("t-1", 0, 3)
	for _, code := range append([]int{401, 403}, k.Refuses...) {
		x := k.Start(t, true)
		x.Fail(status(code, ""), status(code, ""), status(code, ""))
		if o, _, reason, _ := send(x, x.Config, b); o != streaming.Refused || !strings.Contains(reason, strconv.Itoa(code)) {
			t.Fatalf("%d: %s %q, want refused naming %d", code, o, reason, code)
		}
	}
	x := k.Start(t, true)
	if o, _, reason, _ := send(x, x.Refused, b); o != streaming.Refused || reason == "" {
		t.Fatalf("refused credentials: %s %q", o, reason)
	}
	if got := x.Held(); len(got) != 0 {
		t.Fatalf("held %v", got)
	}
}

// parks: any other 4xx rejects the batch (its range is parked), with the
// answer named.
func parks(t *testing.T, k Kind) {
	x := k.Start(t, true)
	for _, code := range []int{400, 404, 413, 422} {
		if slices.Contains(k.Refuses, code) {
			continue
		}
		x.Fail(status(code, ""))
		if o, _, reason, _ := send(x, x.Config, batchtest.Big("t-1", 0, 3)); o != streaming.Rejected || !strings.Contains(reason, strconv.Itoa(code)) {
			t.Fatalf("%d: %s %q, want rejected naming %d", code, o, reason, code)
		}
	}
}

// redirects: a 3xx is not followed (it would lead the batch and its
// credentials elsewhere): the batch is rejected, and the place it points
// to sees no request.
func redirects(t *testing.T, k Kind) {
	x := k.Start(t, true)
	elsewhere := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed: %s %s", r.Method, r.URL)
	}))
	defer elsewhere.Close()
	for _, code := range []int{301, 302, 307, 308} {
		x.Fail(func(w http.ResponseWriter) {
			http.Redirect(w, &http.Request{Method: http.MethodPost}, elsewhere.URL+"/take", code)
		})
		if o, _, reason, _ := send(x, x.Config, batchtest.Big("t-1", 0, 3)); o != streaming.Rejected || !strings.Contains(reason, strconv.Itoa(code)) {
			t.Fatalf("%d: %s %q, want rejected naming %d", code, o, reason, code)
		}
	}
}

// noAnswer: a connection closed without an answer is a retry, with the
// error.
func noAnswer(t *testing.T, k Kind) {
	x := k.Start(t, true)
	x.Fail(func(w http.ResponseWriter) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
	if o, _, _, err := send(x, x.Config, batchtest.Big("t-1", 0, 3)); o != streaming.Retry || err == nil {
		t.Fatalf("%s %v, want a retry with the error", o, err)
	}
}

// private: a destination whose client admits public addresses only
// reaches nothing on the loopback receiver, whatever the stream's URL
// says (a name can resolve anywhere): the delivery fails and is retried.
func private(t *testing.T, k Kind) {
	x := k.Start(t, false)
	o, _, _, err := send(x, x.Config, batchtest.Big("t-1", 0, 3))
	if o != streaming.Retry || err == nil || !strings.Contains(err.Error(), "public") && !strings.Contains(err.Error(), "private") {
		t.Fatalf("%s %v, want a retry for a private address", o, err)
	}
	if got := x.Held(); len(got) != 0 {
		t.Fatalf("held %v", got)
	}
}
