package mask_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/mask"

	"github.com/auditlog/auditlog/audit"
)

func sensitiveEvent(action audit.Action, typ, before, after string) audit.Event {
	e := audit.Event{TenantID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Action: action, Resource: audit.Resource{Type: typ, ID: "x1"}}
	if before != "" {
		e.Before = json.RawMessage(before)
	}
	if after != "" {
		e.After = json.RawMessage(after)
	}
	return e
}

func policyFields(t *testing.T, err error) []string {
	t.Helper()
	var ae *audit.Error
	if !errors.As(err, &ae) || ae.Code != audit.EINVALID {
		t.Fatalf("want an EINVALID error, got %v", err)
	}
	var out []string
	for _, f := range ae.Fields {
		out = append(out, f.Field+": "+f.Message)
	}
	return out
}

func TestSensitiveUpdatesCarryTheirState(t *testing.T) {
	p := &mask.Policy{Key: []byte("k")}
	for _, typ := range []string{"ivr", "recording_policy", "user_role"} {
		e := sensitiveEvent(audit.ActionUpdate, typ, "", `{"a":1}`)
		got := policyFields(t, p.Apply(&e))
		if len(got) != 1 || !strings.HasPrefix(got[0], "before: an update of "+typ) {
			t.Fatalf("%s without before: %v", typ, got)
		}
		e = sensitiveEvent(audit.ActionUpdate, typ, "", "")
		if got := policyFields(t, p.Apply(&e)); len(got) != 2 {
			t.Fatalf("%s without either: %v", typ, got)
		}
	}
	for _, e := range []audit.Event{
		sensitiveEvent(audit.ActionCreate, "ivr", "", ""),
		sensitiveEvent(audit.ActionUpdate, "queue", "", ""),
	} {
		if err := p.Apply(&e); err != nil {
			t.Fatalf("%s %s: %v", e.Action, e.Resource.Type, err)
		}
	}
	custom := &mask.Policy{Types: []string{"queue"}}
	e := sensitiveEvent(audit.ActionUpdate, "queue", "", "")
	if err := custom.Apply(&e); err == nil {
		t.Fatal("a configured sensitive type was not enforced")
	}
	e = sensitiveEvent(audit.ActionUpdate, "ivr", "", "")
	if err := custom.Apply(&e); err != nil {
		t.Fatalf("the configured set replaces the defaults: %v", err)
	}
}

func TestDiffFilledAndChecked(t *testing.T) {
	p := &mask.Policy{Key: []byte("k")}
	e := sensitiveEvent(audit.ActionUpdate, "recording_policy", `{"retentionDays":30,"rules":[{"id":"r1","on":true}]}`, `{"retentionDays":90,"rules":[{"id":"r1","on":false}]}`)
	if err := p.Apply(&e); err != nil {
		t.Fatal(err)
	}
	if len(e.Diff) != 2 || string(e.Diff["retentionDays"].To) != "90" || string(e.Diff["rules[r1].on"].From) != "true" {
		t.Fatalf("diff not filled from before/after: %v", e.Diff)
	}
	sent := sensitiveEvent(audit.ActionUpdate, "recording_policy", `{"d":30}`, `{"d":90}`)
	sent.Diff = map[string]audit.Change{"d": {From: json.RawMessage(`30.0`), To: json.RawMessage(`90`)}}
	if err := p.Apply(&sent); err != nil {
		t.Fatalf("an agreeing diff was refused: %v", err)
	}
	for name, diff := range map[string]map[string]audit.Change{
		"wrong value":  {"d": {From: json.RawMessage(`30`), To: json.RawMessage(`91`)}},
		"missing path": {"x": {From: json.RawMessage(`null`), To: json.RawMessage(`1`)}},
		"extra path":   {"d": {From: json.RawMessage(`30`), To: json.RawMessage(`90`)}, "e": {From: json.RawMessage(`1`), To: json.RawMessage(`2`)}},
	} {
		bad := sensitiveEvent(audit.ActionUpdate, "recording_policy", `{"d":30}`, `{"d":90}`)
		bad.Diff = diff
		got := policyFields(t, p.Apply(&bad))
		if len(got) != 1 || !strings.HasPrefix(got[0], "diff: diff disagrees with before and after at") {
			t.Fatalf("%s: %v", name, got)
		}
	}
}

func TestSecretsAreNeverStoredInClear(t *testing.T) {
	p := &mask.Policy{Key: []byte("deployment key")}
	before := `{"name":"main","integration":{"crm":{"auth":{"ClientSecret":"s3cr3t-old","user":"bot"}}},"password":"hunter2"}`
	after := `{"name":"main","integration":{"crm":{"auth":{"ClientSecret":"s3cr3t-new","user":"bot"}}},"password":"hunter2"}`
	e := sensitiveEvent(audit.ActionUpdate, "ivr", before, after)
	if err := p.Apply(&e); err != nil {
		t.Fatal(err)
	}
	whole, _ := json.Marshal(e)
	for _, secret := range []string{"s3cr3t-old", "s3cr3t-new", "hunter2"} {
		if strings.Contains(string(whole), secret) {
			t.Fatalf("%q stored in clear: %s", secret, whole)
		}
	}
	c, ok := e.Diff["integration.crm.auth.ClientSecret"]
	if !ok || len(e.Diff) != 1 {
		t.Fatalf("the secret's change is not visible as one changed path: %v", slices.Sorted(maps.Keys(e.Diff)))
	}
	if !mask.Masked(c.From) || !mask.Masked(c.To) || string(c.From) == string(c.To) {
		t.Fatalf("want two different markers, got %s → %s", c.From, c.To)
	}
	// Deterministic per key and tenant: a redelivery masks to the same
	// bytes; another key gives other markers.
	again := sensitiveEvent(audit.ActionUpdate, "ivr", before, after)
	_ = p.Apply(&again)
	if string(again.Before) != string(e.Before) {
		t.Fatal("masking is not deterministic")
	}
	other := sensitiveEvent(audit.ActionUpdate, "ivr", before, after)
	_ = (&mask.Policy{Key: []byte("another key")}).Apply(&other)
	if string(other.Before) == string(e.Before) {
		t.Fatal("the key does not key the markers")
	}
	// A marker that arrives is masked again: the service cannot tell
	// whose key made it, so what it stores is always its own.
	twice := sensitiveEvent(audit.ActionUpdate, "ivr", string(e.Before), string(e.After))
	if err := p.Apply(&twice); err != nil || string(twice.Before) == string(e.Before) || !mask.Masked(twice.Diff["integration.crm.auth.ClientSecret"].To) {
		t.Fatalf("a marker sent by a producer was kept as sent: %s (%v)", twice.Before, err)
	}
	// A producer's diff naming the secret in clear is masked too.
	sent := sensitiveEvent(audit.ActionUpdate, "queue", "", "")
	sent.Diff = map[string]audit.Change{"webhook.apiKey": {From: json.RawMessage(`"k-old"`), To: json.RawMessage(`"k-new"`)},
		"config": {From: json.RawMessage(`{"token":"t-old"}`), To: json.RawMessage(`{"token":"t-new"}`)}}
	if err := p.Apply(&sent); err != nil {
		t.Fatal(err)
	}
	whole, _ = json.Marshal(sent)
	for _, secret := range []string{"k-old", "k-new", "t-old", "t-new"} {
		if strings.Contains(string(whole), secret) {
			t.Fatalf("%q stored in clear: %s", secret, whole)
		}
	}
}

// TestSecretNamesMatchTheirVariants: a field is secret when its name, in
// its normal form, contains a secret name: every spelling of case and
// separators, and longer names around a secret word.
func TestSecretNamesMatchTheirVariants(t *testing.T) {
	p := &mask.Policy{}
	for _, name := range []string{"clientSecret", "client_secret", "client-secret", "Client_Secret", "CLIENT SECRET", "api_key", "x-api-key",
		"API-Key", "privateKeyPem", "private_key", "accessToken", "refresh-token", "Password", "db_password_hash", "webhookSecret"} {
		if !p.Secret(name) {
			t.Errorf("%q is not treated as a secret", name)
		}
	}
	for _, name := range []string{"name", "greeting", "user", "retentionDays", "keyId", "publicKey", "secrecy", "tokn"} {
		if p.Secret(name) {
			t.Errorf("%q is treated as a secret", name)
		}
	}
	custom := &mask.Policy{SecretFields: []string{"pin_code"}}
	if !custom.Secret("PinCode") || custom.Secret("password") {
		t.Error("configured names are matched in their normal form and replace the defaults")
	}
}

// TestSecretVariantsAreMaskedAtAnyDepth: every variant of a secret name,
// at depth 1 and 3 and inside arrays, in before, after and a sent diff,
// leaves no clear value in the stored event.
func TestSecretVariantsAreMaskedAtAnyDepth(t *testing.T) {
	p := &mask.Policy{Key: []byte("0123456789abcdef0123456789abcdef")}
	names := []string{"client_secret", "client-secret", "Client_Secret", "api_key", "privateKeyPem"}
	state := func(v string) string {
		var parts []string
		for i, n := range names {
			val := fmt.Sprintf(`"%s-%d"`, v, i)
			parts = append(parts, fmt.Sprintf(`"d1_%d":{"%s":%s}`, i, n, val),
				fmt.Sprintf(`"d3_%d":{"a":{"b":{"%s":%s}}}`, i, n, val),
				fmt.Sprintf(`"arr_%d":[{"id":"x","%s":%s},{"id":"y","%s":{"nested":%s}}]`, i, n, val, n, val))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	e := sensitiveEvent(audit.ActionUpdate, "ivr", state("clear-old"), state("clear-new"))
	if err := p.Apply(&e); err != nil {
		t.Fatal(err)
	}
	sent := sensitiveEvent(audit.ActionUpdate, "queue", "", "")
	sent.Diff = map[string]audit.Change{
		"cfg.client_secret":       {From: json.RawMessage(`"clear-old-d"`), To: json.RawMessage(`"clear-new-d"`)},
		"cfg.Client-Secret.value": {From: json.RawMessage(`"clear-old-v"`), To: json.RawMessage(`"clear-new-v"`)},
		"keys[k1].privateKeyPem":  {From: json.RawMessage(`"clear-old-p"`), To: json.RawMessage(`"clear-new-p"`)},
		"cfg":                     {From: json.RawMessage(`{"api_key":"clear-old-o"}`), To: json.RawMessage(`[{"api-key":"clear-new-o"}]`)},
	}
	if err := p.Apply(&sent); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []audit.Event{e, sent} {
		whole, _ := json.Marshal(ev)
		if strings.Contains(string(whole), "clear-") {
			t.Fatalf("a secret stored in clear: %s", whole)
		}
	}
	if len(e.Diff) != 4*len(names) {
		t.Fatalf("want every secret's change visible as a changed marker, got %d paths: %v", len(e.Diff), slices.Sorted(maps.Keys(e.Diff)))
	}
}

// TestOnlyWellFormedMarkersAreMarkers: a value that merely starts with
// the prefix is not a marker, and under a secret field it is masked like
// any other value.
func TestOnlyWellFormedMarkersAreMarkers(t *testing.T) {
	for s, want := range map[string]bool{
		"masked:v1:AAAAAAAAAAAAAAAAAAAAAAAA":  true,
		"masked:v1:abc_-9ABCDEFGHIJKLMNOPQR":  true,
		"masked:v1:hunter2 in clear":          false,
		"masked:v1:AAAAAAAAAAAAAAAAAAAAAAA":   false,
		"masked:v1:AAAAAAAAAAAAAAAAAAAAAAAAA": false,
		"masked:v1:AAAAAAAAAAAAAAAAAAAAAAA=":  false,
		"masked:v2:AAAAAAAAAAAAAAAAAAAAAAAA":  false,
		"xmasked:v1:AAAAAAAAAAAAAAAAAAAAAAAA": false,
		"masked:v1:AAAAAAAAAAAA AAAAAAAAAAAA": false,
	} {
		if audit.IsMarker(s) != want {
			t.Errorf("IsMarker(%q) = %v", s, !want)
		}
	}
	p := &mask.Policy{Key: []byte("0123456789abcdef0123456789abcdef")}
	e := sensitiveEvent(audit.ActionCreate, "queue", "", `{"clientSecret":"masked:v1:hunter2 in clear"}`)
	if err := p.Apply(&e); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(e.After), "hunter2") || !mask.Masked(json.RawMessage(strings.TrimSuffix(strings.TrimPrefix(string(e.After), `{"clientSecret":`), "}"))) {
		t.Fatalf("stored %s", e.After)
	}
}

func TestMaskKeysMustBeRandomEnough(t *testing.T) {
	for key, ok := range map[string]bool{
		"":                                   false,
		"k":                                  false,
		"0123456789abcdef0123456789abcde":    false, // 31 bytes
		"0123456789abcdef0123456789abcdef":   true,
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": false,
		"abababababababababababababababab":   false,
	} {
		if err := mask.CheckKey([]byte(key)); (err == nil) != ok {
			t.Errorf("CheckKey(%q) = %v", key, err)
		}
	}
}

// TestNoMarkerIsAnHMACWithAnEmptyKey: a policy given no key masks with a
// random key of the process, never with an empty one.
func TestNoMarkerIsAnHMACWithAnEmptyKey(t *testing.T) {
	e := sensitiveEvent(audit.ActionCreate, "queue", "", `{"password":"hunter2"}`)
	if err := (&mask.Policy{}).Apply(&e); err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, nil)
	m.Write([]byte(e.TenantID + "\x00" + `"hunter2"`))
	guess := audit.MaskPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
	if strings.Contains(string(e.After), guess) || !strings.Contains(string(e.After), audit.MaskPrefix) {
		t.Fatalf("stored %s: the marker is the HMAC of an empty key", e.After)
	}
}
