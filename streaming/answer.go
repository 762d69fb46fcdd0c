package streaming

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Answer is a destination's answer to one request: its status (code and
// line), the first bytes of its body, and what it means for the stream
// (Classify).
type Answer struct {
	Code    int
	Status  string // "401 Unauthorized"
	Body    []byte
	Outcome Outcome
	Wait    time.Duration
	// Reason is "<status> from <who>: <body>" unless the request was
	// accepted, or "no answer from <who>: …".
	Reason string
}

// Do sends req through c and reads its answer, at most limit bytes of
// the body, classified at now; who names the destination in the reason
// ("the webhook", "Datadog"). err is set when no answer came: the outcome
// is then Retry. Every destination's requests go through it, so that
// each reads an answer, and says why it failed, the same way.
func Do(c *http.Client, req *http.Request, now time.Time, who string, limit int64) (Answer, error) {
	res, err := c.Do(req)
	if err != nil {
		return Answer{Outcome: Retry, Reason: "no answer from " + who + ": " + err.Error()}, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, limit))
	a := Answer{Code: res.StatusCode, Status: res.Status, Body: body}
	a.Outcome, a.Wait = Classify(res.StatusCode, res.Header.Get("Retry-After"), now)
	if a.Outcome != Accepted {
		a.Reason = fmt.Sprintf("%s from %s: %s", res.Status, who, bytes.TrimSpace(body))
	}
	return a, nil
}
