// Package webhook is the HTTPS webhook destination of a tenant's stream
// (Kind): the signed post of a streaming.Batch, the
// signature a receiver checks, and the check of a receiver's capture
// (`auditlog stream check --capture`).
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The headers of a delivery.
const (
	TimestampHeader = "X-Auditlog-Timestamp" // Unix seconds of the request
	SignatureHeader = "X-Auditlog-Signature" // "v1=" + hex HMAC-SHA256 of "<timestamp>.<body>"
)

// DefaultWindow is how far a request's timestamp may be from the
// receiver's clock before Verify refuses it as a replay.
const DefaultWindow = 5 * time.Minute

// Sign is the signature header of body sent at ts with secret: HMAC-SHA256
// over the timestamp, a dot and the body, so that a captured request
// cannot be sent again later with another timestamp.
func Sign(secret []byte, ts time.Time, body []byte) string {
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "%d.", ts.Unix())
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a delivery as its receiver gets it: the timestamp header
// within window of now, and the signature header (one or more
// comma-separated v1= values, so that a secret can be rotated) matching
// body. It is what a receiver written in Go calls; the README gives the
// same steps for any language.
func Verify(secret []byte, timestamp, signature string, body []byte, now time.Time, window time.Duration) error {
	sec, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook: no valid " + TimestampHeader)
	}
	ts := time.Unix(sec, 0)
	if d := now.Sub(ts); d > window || d < -window {
		return fmt.Errorf("webhook: the request was signed %s from now, outside the %s window: a replay or a clock off", d.Round(time.Second), window)
	}
	want := Sign(secret, ts, body)
	for _, v := range strings.Split(signature, ",") {
		if hmac.Equal([]byte(strings.TrimSpace(v)), []byte(want)) {
			return nil
		}
	}
	return errors.New("webhook: the signature does not match the body")
}
