package client_test

import (
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/client"
)

const tenant = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"

var (
	actor = audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "ivr-service@x.example", Role: "service"}
	ivr   = audit.Resource{Type: audit.ResourceIVR, ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"}
)

type ivrState struct {
	Greeting string         `json:"greeting"`
	Crm      map[string]any `json:"crm"`
}

func newClient(t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestEventMasksSecretsAndComputesTheDiff: a clientSecret three levels
// deep never leaves the producer in clear; its change still shows.
func TestEventMasksSecretsAndComputesTheDiff(t *testing.T) {
	c := newClient(t, client.Config{IngestURL: "http://unused", MaskKey: client.NewMaskKey()})
	before := ivrState{Greeting: "hi", Crm: map[string]any{"auth": map[string]any{"clientSecret": "old-secret-1", "user": "u"}}}
	after := ivrState{Greeting: "hello", Crm: map[string]any{"auth": map[string]any{"clientSecret": "new-secret-2", "user": "u"}}}
	e, err := c.Event(client.Change{TenantID: tenant, Actor: actor, Action: audit.ActionUpdate, Resource: ivr, Before: before, After: after})
	if err != nil {
		t.Fatal(err)
	}
	raw := string(e.Before) + string(e.After)
	if strings.Contains(raw, "old-secret-1") || strings.Contains(raw, "new-secret-2") || !strings.Contains(raw, audit.MaskPrefix) {
		t.Fatalf("states %s", raw)
	}
	if got := strings.Join(e.ChangedFields(), ","); got != "crm.auth.clientSecret,greeting" {
		t.Fatalf("diff %s, want the secret's change and the greeting's", got)
	}
	if !audit.ValidID(e.ID) || e.Timestamp.IsZero() || e.Outcome != audit.OutcomeSuccess {
		t.Fatalf("event %+v", e)
	}
	// An update of a sensitive type without its states is refused here,
	// before it is sent.
	_, err = c.Event(client.Change{TenantID: tenant, Actor: actor, Action: audit.ActionUpdate, Resource: ivr, After: after})
	if fs := audit.ErrorFields(err); audit.ErrorCode(err) != audit.EINVALID || len(fs) == 0 || fs[0].Field != "before" {
		t.Fatalf("update without before: %v", err)
	}
	_, err = c.Event(client.Change{TenantID: "acme", Actor: actor, Action: "publish", Resource: ivr})
	if len(audit.ErrorFields(err)) != 2 {
		t.Fatalf("a bad tenant and action: %v", err)
	}
}

func TestConfigNeedsADestination(t *testing.T) {
	if _, err := client.New(client.Config{}); err == nil {
		t.Fatal("no destination accepted")
	}
}

// TestAGuessableMaskKeyIsRefused: a client that masks at the source needs
// a key of 32 random bytes; an empty or short key would make every
// marker on the topic a hash anyone can test guesses against.
func TestAGuessableMaskKeyIsRefused(t *testing.T) {
	for _, key := range [][]byte{{}, []byte("k"), []byte("0123456789abcdef0123456789abcde"), make([]byte, 32)} {
		if _, err := client.New(client.Config{IngestURL: "http://unused", MaskKey: key}); err == nil || !strings.Contains(err.Error(), "MaskKey") {
			t.Errorf("key %q accepted: %v", key, err)
		}
	}
	if _, err := client.New(client.Config{IngestURL: "http://unused", MaskKey: client.NewMaskKey()}); err != nil {
		t.Fatal(err)
	}
}

// TestWithoutAKeyTheClientLeavesMaskingToTheService: no key, no marker:
// the states go as they are (the service masks them with its own key)
// and the update's required states are still checked here.
func TestWithoutAKeyTheClientLeavesMaskingToTheService(t *testing.T) {
	c := newClient(t, client.Config{IngestURL: "http://unused"})
	before := ivrState{Greeting: "hi", Crm: map[string]any{"auth": map[string]any{"clientSecret": "old-secret-1"}}}
	e, err := c.Event(client.Change{TenantID: tenant, Actor: actor, Action: audit.ActionUpdate, Resource: ivr, Before: before, After: before})
	if err != nil || strings.Contains(string(e.Before), audit.MaskPrefix) || len(e.Diff) != 0 {
		t.Fatalf("event %s %v %v", e.Before, e.Diff, err)
	}
	if _, err := c.Event(client.Change{TenantID: tenant, Actor: actor, Action: audit.ActionUpdate, Resource: ivr, After: before}); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("update without before: %v", err)
	}

}
