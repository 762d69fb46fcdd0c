package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// NewID returns a fresh event id: IDPrefix followed by a UUIDv7.
func NewID() string {
	return IDPrefix + uuid.Must(uuid.NewV7()).String()
}

// NormalizeID is an event id in its canonical form: IDPrefix and the UUID
// after it in lower case (an id is case-insensitive: one pasted in
// capitals, EVT_AUDIT_…, is the same id). Every path that
// takes an event id (an event, a URL, a query parameter, a restore body)
// normalises it so, and stores keep only this form.
func NormalizeID(id string) string {
	if len(id) < len(IDPrefix) || !strings.EqualFold(id[:len(IDPrefix)], IDPrefix) {
		return id
	}
	rest := id[len(IDPrefix):]
	if lower := toLower(rest); lower != rest || id[:len(IDPrefix)] != IDPrefix {
		return IDPrefix + lower
	}
	return id
}

// ValidID reports whether id is IDPrefix followed by an RFC 9562 UUID in
// canonical lowercase form: any version from 1 to 8 with the RFC variant.
// The service mints UUIDv7 (NewID, DeriveID), but spec §2.1 asks only for
// "a unique identifier", so a producer's UUIDv4 is as good. The nil and
// max UUIDs, other variants and non-canonical spellings are refused.
// Event.Normalize lowercases the UUID part first.
func ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || len(rest) != 36 {
		return false
	}
	u, err := uuid.Parse(rest)
	return err == nil && canonicalUUID(rest) && u.Version() >= 1 && u.Version() <= 8 && u.Variant() == uuid.RFC4122
}

// canonicalUUID reports whether s, which uuid.Parse takes (36 bytes:
// hex digits, hyphens at 8, 13, 18 and 23), is in lower case, as a
// UUID's canonical form is. (Comparing with uuid.UUID.String said the
// same, with a string an id.)
func canonicalUUID(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'F' {
			return false
		}
	}
	return true
}

// DeriveID returns a deterministic event id for an event that arrived
// without one, so that a redelivery or a retried request keeps its id (the
// id is the idempotency key). It is a valid UUIDv7: the 48-bit time field
// is the event's timestamp in milliseconds, and the other 74 bits come
// from SHA-256 of key.
func DeriveID(ts Timestamp, key []byte) string {
	sum := sha256.Sum256(key)
	var u uuid.UUID
	ms := uint64(ts.UnixMilli())
	binary.BigEndian.PutUint64(u[:8], ms<<16)
	copy(u[6:], sum[:10])
	u[6] = 0x70 | (u[6] & 0x0f) // version 7
	u[8] = 0x80 | (u[8] & 0x3f) // RFC 4122 variant
	return IDPrefix + u.String()
}

// KafkaKey is the DeriveID key for a message at a position of a topic.
func KafkaKey(topic string, partition int, offset int64) []byte {
	return []byte("kafka:" + topic + ":" + strconv.Itoa(partition) + ":" + strconv.FormatInt(offset, 10))
}

// CanonicalKey is the DeriveID key for an event that came over HTTP: its
// canonical JSON encoding without the id (object keys sorted, raw values
// compacted), so the same event sent twice gets the same id.
func CanonicalKey(e Event) []byte {
	e.ID = ""
	b, err := json.Marshal(e)
	if err != nil { // Event always marshals; keep the key non-empty anyway
		return []byte(e.TenantID + e.Timestamp.String())
	}
	return append([]byte("http:"), b...)
}

// DerivedID is the event id of a record the service writes of something
// that must be recorded once however often it is attempted: a UUIDv5 of
// kind and parts, so that the same parts always give the same id and the
// store keeps one event.
func DerivedID(kind string, parts ...string) string {
	h := sha256.Sum256([]byte(kind + "\x00" + strings.Join(parts, "\x00")))
	return IDPrefix + uuid.NewSHA1(uuid.Nil, h[:]).String()
}
