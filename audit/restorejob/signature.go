package restorejob

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// SignatureHeader carries the signature of a restore request delivered
// to a webhook: "t=<unix seconds>,v1=<hex HMAC-SHA-256>", the HMAC keyed
// with the webhook secret over "<t>.<body>". The timestamp is signed, so
// a captured request cannot be replayed after SignatureTolerance. The
// scheme is the one Stripe and Standard Webhooks use; it is a few lines
// of crypto/hmac, kept here so that the service and the producer client
// share one definition without another dependency.
const SignatureHeader = "Auditlog-Signature"

// SignatureTolerance is how old (or how far ahead) a signed timestamp
// may be when it is verified.
const SignatureTolerance = 5 * time.Minute

// SignBody returns the SignatureHeader value of body at time t.
func SignBody(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(bodyMAC(secret, ts, body))
}

// VerifyBody checks a SignatureHeader value against body at time now.
// Errors: EUNAUTHORIZED naming what is wrong (malformed, too old, no
// matching signature).
func VerifyBody(secret, body []byte, header string, now time.Time) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return audit.Errorf(audit.EUNAUTHORIZED, "%s is malformed: want t=<unix seconds>,v1=<hex>", SignatureHeader)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > SignatureTolerance || d < -SignatureTolerance {
		return audit.Errorf(audit.EUNAUTHORIZED, "%s is %s away from now: more than %s", SignatureHeader, d.Round(time.Second), SignatureTolerance)
	}
	want := bodyMAC(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return audit.Errorf(audit.EUNAUTHORIZED, "%s does not match the body", SignatureHeader)
}

func bodyMAC(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}
