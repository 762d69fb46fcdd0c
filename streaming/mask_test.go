package streaming_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/streaming"
)

// hashedEmails reads each delivered event's hashed e-mail, by event id.
func hashedEmails(t *testing.T, batches []streaming.Batch) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, b := range batches {
		for _, e := range b.Events {
			var ev struct {
				ID    string `json:"id"`
				Actor struct {
					Email string `json:"email"`
				} `json:"actor"`
			}
			if err := json.Unmarshal(e.Event, &ev); err != nil || !strings.HasPrefix(ev.Actor.Email, stream.MaskedPrefix) {
				t.Fatalf("a delivered event whose e-mail is not hashed: %v %s", err, e.Event)
			}
			out[ev.ID] = ev.Actor.Email
		}
	}
	return out
}

// TestMaskedValuesCannotBeLookedUpByTheReceiver (issue 54): a hashed
// e-mail is keyed by a secret the receiver never gets. Holding everything
// a delivery carries (the stream and tenant ids, the webhook secret) and
// every e-mail of the tenant, the receiver cannot compute any delivered
// hash; equal e-mails still hash alike within the stream; another stream
// of the same tenant hashes them otherwise; a streamer with no masking
// key sends nothing rather than a weaker hash.
func TestMaskedValuesCannotBeLookedUpByTheReceiver(t *testing.T) {
	s, st, rc, d := setup(t)
	drain(t, s, st)
	got := hashedEmails(t, rc.batches)
	if len(got) == 0 {
		t.Fatal("nothing delivered")
	}
	emails := map[string]string{} // event id → e-mail in clear
	for _, e := range d.Events {
		emails[e.ID] = e.Actor.Email
	}
	byEmail := map[string]string{}
	for id, h := range got {
		email := emails[id]
		if prev, ok := byEmail[email]; ok && prev != h {
			t.Fatalf("one e-mail, two hashes in one stream: %s %s", prev, h)
		}
		byEmail[email] = h
	}
	// The attacker's dictionary: every key a receiver could try.
	b := rc.batches[0]
	for _, key := range []string{b.StreamID, b.TenantID, st.ID, string(rc.secret), ""} {
		for email := range byEmail {
			m := hmac.New(sha256.New, []byte(key))
			m.Write([]byte(email))
			guess := stream.MaskedPrefix + hex.EncodeToString(m.Sum(nil))
			for _, h := range byEmail {
				if guess == h {
					t.Fatalf("the receiver matched %s with the key %q", email, key)
				}
			}
		}
	}
	if len(byEmail) < 2 {
		t.Fatalf("the dataset has %d distinct e-mails: the test needs several", len(byEmail))
	}

	// Another stream of the tenant, the same mask: other hashes.
	other := *st
	other.ID, other.Rev, other.Cursor, other.Name = "7a1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6c", "", 0, "SIEM 2"
	ctx := context.Background()
	if err := s.Streams.PutStream(ctx, &other); err != nil {
		t.Fatal(err)
	}
	before := len(rc.batches)
	drain(t, s, &other)
	again := hashedEmails(t, rc.batches[before:])
	for id, h := range again {
		if got[id] == h {
			t.Fatalf("two streams hash event %s's e-mail alike: %s", id, h)
		}
	}

	// No masking key: nothing sent, the stream's batch fails by name.
	keyless := *s
	keyless.MaskKey = nil
	third := *st
	third.ID, third.Rev, third.Cursor, third.Name = "8b1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6d", "", 0, "SIEM 3"
	if err := s.Streams.PutStream(ctx, &third); err != nil {
		t.Fatal(err)
	}
	before = len(rc.batches)
	if _, err := keyless.Step(ctx, &third); err == nil || !strings.Contains(err.Error(), "masking key") || len(rc.batches) != before {
		t.Fatalf("a stream hashed without a masking key: %v, %d batches sent", err, len(rc.batches)-before)
	}
}
