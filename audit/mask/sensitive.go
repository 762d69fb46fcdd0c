package mask

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/auditlog/auditlog/audit"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// DefaultSensitiveTypes are the resource types whose updates must carry
// their complete state before and after (spec §1.3).
var DefaultSensitiveTypes = []string{audit.ResourceRecordingPolicy, audit.ResourceIVR, audit.ResourceUserRole}

// DefaultSecretFields are the names whose values are never stored in
// clear: a field is secret when its name contains one of them, both
// compared in their normal form (SecretName): "client_secret",
// "Client-Secret", "x-api-key" and "privateKeyPem" are all secret.
var DefaultSecretFields = []string{"password", "secret", "token", "apiKey", "privateKey", "clientSecret"}

// SecretName is the normal form in which field names are matched against
// the secret names: lower case, without '_', '-', '.' or spaces.
func SecretName(name string) string {
	plain := true
	for i := 0; i < len(name) && plain; i++ {
		c := name[i]
		plain = c < 0x80 && !('A' <= c && c <= 'Z') && c != '_' && c != '-' && c != '.' && c != ' '
	}
	if plain {
		return name // the common case costs no allocation
	}
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		switch r {
		case '_', '-', '.', ' ':
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Policy holds the rules for sensitive changes. Its zero value
// applies the defaults with a random key of the process (never an empty
// one): the wiring in cmd/ always sets Key (AUDITLOG_MASK_KEY, or the
// store's generated key), and the producer client refuses a key shorter
// than MinKey.
//
// Every value under a secret field is masked by Apply, whatever it looks
// like: a value that already is a marker (masked by a producer, with a
// key the service cannot check) is masked again, so every stored marker
// is one this policy's key computed.
type Policy struct {
	// Types whose update events must carry before and after; nil means
	// DefaultSensitiveTypes.
	Types []string
	// SecretFields are masked wherever they occur; nil means
	// DefaultSecretFields.
	SecretFields []string
	// Key keys the masking hash (HMAC-SHA-256), so a marker cannot be
	// checked against guessed secrets without it.
	Key []byte

	// names are SecretFields in their normal form, made once.
	names struct {
		once sync.Once
		list [][]byte
	}
}

// Sensitive reports whether updates of resource type t must carry their
// complete state.
func (p *Policy) Sensitive(t string) bool {
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

// Secret reports whether a field name names a secret: its normal form
// (SecretName) contains the normal form of one of the secret names.
func (p *Policy) Secret(name string) bool {
	p.names.once.Do(func() {
		names := p.SecretFields
		if names == nil {
			names = DefaultSecretFields
		}
		for _, s := range names {
			if s := SecretName(s); s != "" {
				p.names.list = append(p.names.list, []byte(s))
			}
		}
	})
	var buf [64]byte
	n, ok := appendSecretName(buf[:0], name)
	if !ok {
		n = []byte(SecretName(name))
	}
	for _, s := range p.names.list {
		if bytes.Contains(n, s) {
			return true
		}
	}
	return false
}

// appendSecretName appends SecretName(name) to dst when name is ASCII (a
// field name's usual case: on the stack, no allocation); false when it is
// not, for SecretName to do.
func appendSecretName(dst []byte, name string) ([]byte, bool) {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 0x80:
			return nil, false
		case c == '_' || c == '-' || c == '.' || c == ' ':
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst, true
}

// Apply enforces the policy on a decoded, valid event, before it is
// stored:
//   - secrets in before, after and the diff are replaced by markers;
//   - an update of a sensitive type without before and after is EINVALID;
//   - with before and after, the diff is computed from them (DeepDiff):
//     filled in when the producer sent none, and a sent diff that
//     disagrees is EINVALID naming the first disagreeing path.
func (p *Policy) Apply(e *audit.Event) error { return p.apply(e, true) }

// Require is what a producer that leaves masking to the service checks
// before sending: an update of a sensitive type carries before and after,
// and a change within MaxDiffFields. It neither masks nor fills the diff
// (the service computes it from the states it has masked). Errors:
// EINVALID naming the field.
func (p *Policy) Require(e *audit.Event) error { return p.apply(e, false) }

func (p *Policy) apply(e *audit.Event, mask bool) error {
	var fe audit.FieldErrors
	add := func(field, format string, args ...any) {
		fe = append(fe, audit.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if e.Action == audit.ActionUpdate && p.Sensitive(e.Resource.Type) {
		if len(e.Before) == 0 {
			add("before", "an update of %s must carry the complete state before the change", e.Resource.Type)
		}
		if len(e.After) == 0 {
			add("after", "an update of %s must carry the complete state after the change", e.Resource.Type)
		}
	}
	if len(fe) > 0 {
		return fe.Err("invalid event")
	}
	if mask {
		p.mask(e)
	}
	if len(e.Before) == 0 || len(e.After) == 0 {
		return nil
	}
	want, err := audit.DeepDiff(e.Before, e.After)
	if err != nil {
		return audit.Errorf(audit.EINVALID, "invalid event: %v", err)
	}
	if len(want) > audit.MaxDiffFields {
		add("after", "the change touches %d fields; the limit is %d", len(want), audit.MaxDiffFields)
		return fe.Err("invalid event")
	}
	if !mask {
		return nil
	}
	if len(e.Diff) == 0 {
		e.Diff = want
		return nil
	}
	if path, ok := sameDiff(e.Diff, want); !ok {
		add("diff", "diff disagrees with before and after at %q", path)
		return fe.Err("invalid event")
	}
	return nil
}

// mask replaces every secret in before, after and the diff by its marker.
func (p *Policy) mask(e *audit.Event) {
	e.Before, e.After = p.maskRaw(e.TenantID, e.Before), p.maskRaw(e.TenantID, e.After)
	for k, c := range e.Diff {
		if p.secretPath(k) {
			c.From, c.To = p.markRaw(e.TenantID, c.From), p.markRaw(e.TenantID, c.To)
		} else {
			c.From, c.To = p.maskRaw(e.TenantID, c.From), p.maskRaw(e.TenantID, c.To)
		}
		e.Diff[k] = c
	}
}

// secretPath reports whether any key of a diff path ("a.b[id].c") names
// a secret field: below a secret, everything is secret.
func (p *Policy) secretPath(path string) bool {
	for part := range strings.SplitSeq(path, ".") {
		key, _, _ := strings.Cut(part, "[")
		if p.Secret(key) {
			return true
		}
	}
	return false
}

// maskRaw replaces every secret field's value inside a JSON value.
// A value without a secret key (most) is only encoded again, as
// rewriteRaw would, without decoding it (jsonenc.AppendMarshaled).
func (p *Policy) maskRaw(tenant string, raw json.RawMessage) json.RawMessage {
	if jsonenc.MarshaledScalar(raw) {
		return raw // no key to mask, and already as it would be written
	}
	if len(raw) > 0 && !jsonenc.IsNull(raw) && jsonenc.Valid(raw) && !jsonenc.HasKey(raw, p.Secret) {
		return jsonenc.AppendMarshaled(make([]byte, 0, len(raw)), raw)
	}
	return rewriteRaw(raw, func(v any) any { return p.maskValue(tenant, v) })
}

// markRaw masks a whole value (the value of a secret field).
func (p *Policy) markRaw(tenant string, raw json.RawMessage) json.RawMessage {
	return rewriteRaw(raw, func(v any) any { return p.marker(tenant, v) })
}

// rewriteRaw applies f to a decoded JSON value and encodes the result;
// absent and null stay as they are.
func rewriteRaw(raw json.RawMessage, f func(any) any) json.RawMessage {
	if len(raw) == 0 || jsonenc.IsNull(raw) {
		return raw
	}
	v, err := jsonenc.Decode(raw)
	if err != nil {
		return raw // validation refused anything that is not JSON
	}
	out, _ := json.Marshal(f(v))
	return out
}

func (p *Policy) maskValue(tenant string, v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if p.Secret(k) {
				t[k] = p.marker(tenant, x)
			} else {
				t[k] = p.maskValue(tenant, x)
			}
		}
	case []any:
		for i, x := range t {
			t[i] = p.maskValue(tenant, x)
		}
	}
	return v
}

// marker is the stored stand-in of a secret value: null stays null (a
// secret that was absent); anything else, a marker a producer sent
// included, becomes MaskPrefix and a keyed hash of the tenant and the
// value's canonical JSON. A producer's marker is never kept as sent: the
// service cannot tell one made with a strong key from one made with an
// empty key, or from a secret dressed up as a marker.
func (p *Policy) marker(tenant string, v any) any {
	if v == nil {
		return nil
	}
	canon, _ := json.Marshal(v)
	key := p.Key
	if len(key) == 0 {
		key = processKey()
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(tenant))
	m.Write([]byte{0})
	m.Write(canon)
	return audit.MaskPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// processKey is the masking key of a policy given none: 32 random bytes
// drawn once per process, so that no marker is ever an HMAC with an
// empty key (which anyone could test guesses against). The service's
// wiring always gives a key that outlives the process (AUDITLOG_MASK_KEY,
// or the store's generated key); without one, equal secrets mask alike
// only within one process.
var processKey = sync.OnceValue(NewKey)

// NewKey returns a fresh masking key: MinKey random bytes.
func NewKey() []byte {
	k := make([]byte, MinKey)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand never fails on the supported platforms
	}
	return k
}

// Masked reports whether a JSON value is a masked secret (a well-formed
// marker).
func Masked(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && audit.IsMarker(s)
}

// MinKey is the shortest masking key accepted, in bytes.
const MinKey = 32

// CheckKey refuses a masking key an attacker could guess: shorter
// than MinKey bytes, or of fewer than 8 distinct bytes ("aaaa…",
// "0000…", "abab…"). Errors: EINVALID.
func CheckKey(key []byte) error {
	if len(key) < MinKey {
		return audit.Errorf(audit.EINVALID, "the masking key is %d bytes: want at least %d random bytes", len(key), MinKey)
	}
	var seen [256]bool
	distinct := 0
	for _, c := range key {
		if !seen[c] {
			seen[c], distinct = true, distinct+1
		}
	}
	if distinct < 8 {
		return audit.Errorf(audit.EINVALID, "the masking key has only %d distinct bytes: want random bytes", distinct)
	}
	return nil
}

// Decode is how both entry points (HTTP ingest here, the Kafka indexer
// with DecodeOwned) read an event: DecodeEvent, then Apply. A nil policy
// is the zero one.
func (p *Policy) Decode(data []byte, now time.Time) (audit.Event, error) {
	e, err := audit.DecodeEvent(data, now)
	if err != nil {
		return e, err
	}
	return e, p.orZero().Apply(&e)
}

// DecodeOwned is Decode into *dst of data its caller hands over
// (audit.DecodeEventOwned): the indexer's Kafka messages.
func (p *Policy) DecodeOwned(dst *audit.Event, data []byte, now time.Time) error {
	if err := audit.DecodeEventOwned(dst, data, now); err != nil {
		return err
	}
	return p.orZero().Apply(dst)
}

// orZero is p, or the zero policy when p is nil.
func (p *Policy) orZero() *Policy {
	if p == nil {
		return &Policy{}
	}
	return p
}

// sameDiff compares a sent diff with the computed one, values by their
// JSON meaning; it returns the first path (sorted) where they differ.
func sameDiff(sent, want map[string]audit.Change) (string, bool) {
	if sameChanges(sent, want) {
		return "", true // the usual answer, without the sorted keys' garbage
	}
	all := make(map[string]audit.Change, len(sent)+len(want))
	maps.Copy(all, sent)
	maps.Copy(all, want)
	for _, k := range slices.Sorted(maps.Keys(all)) {
		s, ok1 := sent[k]
		w, ok2 := want[k]
		if !ok1 || !ok2 || !jsonenc.Same(s.From, w.From) || !jsonenc.Same(s.To, w.To) {
			return k, false
		}
	}
	return "", true
}

// sameChanges reports whether sent and want hold the same paths with the
// same changes.
func sameChanges(sent, want map[string]audit.Change) bool {
	if len(sent) != len(want) {
		return false
	}
	for k, s := range sent {
		w, ok := want[k]
		if !ok || !jsonenc.Same(s.From, w.From) || !jsonenc.Same(s.To, w.To) {
			return false
		}
	}
	return true
}
