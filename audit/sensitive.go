package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// DefaultSensitiveTypes are the resource types whose updates must carry
// their complete state before and after (spec §1.3).
var DefaultSensitiveTypes = []string{ResourceRecordingPolicy, ResourceIVR, ResourceUserRole}

// DefaultSecretFields are the field names (case-insensitive, at any depth)
// whose values are never stored in clear.
var DefaultSecretFields = []string{"password", "secret", "token", "apiKey", "privateKey", "clientSecret"}

// MaskPrefix starts every masked value: "masked:v1:" and a keyed hash.
// Two equal secrets of one tenant give the same marker, so a change stays
// visible as changed (or unchanged) without the value.
const MaskPrefix = "masked:v1:"

// SensitivePolicy holds the rules for sensitive changes. Its zero value
// applies the defaults with an empty masking key: the wiring in cmd/
// always sets Key (AUDITLOG_MASK_KEY, or the store's generated key).
type SensitivePolicy struct {
	// Types whose update events must carry before and after; nil means
	// DefaultSensitiveTypes.
	Types []string
	// SecretFields are masked wherever they occur; nil means
	// DefaultSecretFields.
	SecretFields []string
	// Key keys the masking hash (HMAC-SHA-256), so a marker cannot be
	// checked against guessed secrets without it.
	Key []byte
}

// Sensitive reports whether updates of resource type t must carry their
// complete state.
func (p *SensitivePolicy) Sensitive(t string) bool {
	types := p.Types
	if types == nil {
		types = DefaultSensitiveTypes
	}
	for _, s := range types {
		if s == t {
			return true
		}
	}
	return false
}

func (p *SensitivePolicy) secret(name string) bool {
	names := p.SecretFields
	if names == nil {
		names = DefaultSecretFields
	}
	for _, s := range names {
		if strings.EqualFold(s, name) {
			return true
		}
	}
	return false
}

// Apply enforces the policy on a decoded, valid event, before it is
// stored:
//   - secrets in before, after and the diff are replaced by markers;
//   - an update of a sensitive type without before and after is EINVALID;
//   - with before and after, the diff is computed from them (DeepDiff):
//     filled in when the producer sent none, and a sent diff that
//     disagrees is EINVALID naming the first disagreeing path.
func (p *SensitivePolicy) Apply(e *Event) error {
	var fe fieldErrors
	add := func(field, format string, args ...any) {
		fe = append(fe, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if e.Action == ActionUpdate && p.Sensitive(e.Resource.Type) {
		if len(e.Before) == 0 {
			add("before", "an update of %s must carry the complete state before the change", e.Resource.Type)
		}
		if len(e.After) == 0 {
			add("after", "an update of %s must carry the complete state after the change", e.Resource.Type)
		}
	}
	if len(fe) > 0 {
		return fe.err("invalid event")
	}
	e.Before, e.After = p.maskRaw(e.TenantID, e.Before), p.maskRaw(e.TenantID, e.After)
	for k, c := range e.Diff {
		if p.secretPath(k) {
			c.From, c.To = p.markRaw(e.TenantID, c.From), p.markRaw(e.TenantID, c.To)
		} else {
			c.From, c.To = p.maskRaw(e.TenantID, c.From), p.maskRaw(e.TenantID, c.To)
		}
		e.Diff[k] = c
	}
	if len(e.Before) == 0 || len(e.After) == 0 {
		return nil
	}
	want, err := DeepDiff(e.Before, e.After)
	if err != nil {
		return Errorf(EINVALID, "invalid event: %v", err)
	}
	if len(want) > MaxDiffFields {
		add("after", "the change touches %d fields; the limit is %d", len(want), MaxDiffFields)
		return fe.err("invalid event")
	}
	if len(e.Diff) == 0 {
		e.Diff = want
		return nil
	}
	if path, ok := sameDiff(e.Diff, want); !ok {
		add("diff", "diff disagrees with before and after at %q", path)
		return fe.err("invalid event")
	}
	return nil
}

// secretPath reports whether the last segment of a dotted diff path names
// a secret field.
func (p *SensitivePolicy) secretPath(path string) bool {
	last := path[strings.LastIndexAny(path, ".]")+1:]
	return p.secret(last)
}

// maskRaw replaces every secret field's value inside a JSON value.
func (p *SensitivePolicy) maskRaw(tenant string, raw json.RawMessage) json.RawMessage {
	return rewriteRaw(raw, func(v any) any { return p.mask(tenant, v) })
}

// markRaw masks a whole value (the value of a secret field).
func (p *SensitivePolicy) markRaw(tenant string, raw json.RawMessage) json.RawMessage {
	return rewriteRaw(raw, func(v any) any { return p.marker(tenant, v) })
}

// rewriteRaw applies f to a decoded JSON value and encodes the result;
// absent and null stay as they are.
func rewriteRaw(raw json.RawMessage, f func(any) any) json.RawMessage {
	if len(raw) == 0 || isNull(raw) {
		return raw
	}
	v, err := decodeValue(raw)
	if err != nil {
		return raw // validation refused anything that is not JSON
	}
	out, _ := json.Marshal(f(v))
	return out
}

func (p *SensitivePolicy) mask(tenant string, v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if p.secret(k) {
				t[k] = p.marker(tenant, x)
			} else {
				t[k] = p.mask(tenant, x)
			}
		}
	case []any:
		for i, x := range t {
			t[i] = p.mask(tenant, x)
		}
	}
	return v
}

// marker is the stored stand-in of a secret value: null stays null (a
// secret that was absent), a marker stays itself (masking twice changes
// nothing), anything else becomes MaskPrefix and a keyed hash of the
// tenant and the value's canonical JSON.
func (p *SensitivePolicy) marker(tenant string, v any) any {
	if v == nil {
		return nil
	}
	if s, ok := v.(string); ok && strings.HasPrefix(s, MaskPrefix) {
		return s
	}
	canon, _ := json.Marshal(v)
	m := hmac.New(sha256.New, p.Key)
	m.Write([]byte(tenant))
	m.Write([]byte{0})
	m.Write(canon)
	return MaskPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// Masked reports whether a JSON value is a masked secret.
func Masked(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && strings.HasPrefix(s, MaskPrefix)
}

func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Decode is how both entry points (HTTP ingest and the Kafka indexer)
// read an event: DecodeEvent, then Apply. A nil policy is the zero one.
func (p *SensitivePolicy) Decode(data []byte, now time.Time) (Event, error) {
	if p == nil {
		p = &SensitivePolicy{}
	}
	e, err := DecodeEvent(data, now)
	if err != nil {
		return e, err
	}
	return e, p.Apply(&e)
}
