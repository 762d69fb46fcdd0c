package restorejob_test

import (
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/audit"
)

func TestWebhookSignature(t *testing.T) {
	secret, body := []byte("webhook secret"), []byte(`{"requestId":"r1"}`)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := restorejob.SignBody(secret, body, now)
	if !strings.HasPrefix(h, "t=1795348800,v1=") {
		t.Fatalf("header %q", h)
	}
	if err := restorejob.VerifyBody(secret, body, h, now.Add(time.Minute)); err != nil {
		t.Fatalf("a fresh signature was refused: %v", err)
	}
	// Several v1 values (a secret being rotated): any match passes.
	if err := restorejob.VerifyBody(secret, body, "v1=00ff,"+h, now); err != nil {
		t.Fatalf("rotation: %v", err)
	}
	for name, c := range map[string]struct {
		secret, body []byte
		header       string
		at           time.Time
	}{
		"tampered body":     {secret, []byte(`{"requestId":"r2"}`), h, now},
		"another secret":    {[]byte("other"), body, h, now},
		"replayed later":    {secret, body, h, now.Add(6 * time.Minute)},
		"from the future":   {secret, body, h, now.Add(-6 * time.Minute)},
		"no timestamp":      {secret, body, h[strings.Index(h, "v1="):], now},
		"no signature":      {secret, body, "t=1795348800", now},
		"garbage":           {secret, body, "hello", now},
		"timestamp changed": {secret, body, strings.Replace(h, "t=1795348800", "t=1795348801", 1), now},
	} {
		err := restorejob.VerifyBody(c.secret, c.body, c.header, c.at)
		if audit.ErrorCode(err) != audit.EUNAUTHORIZED {
			t.Errorf("%s: %v, want unauthorized", name, err)
		}
	}
}
