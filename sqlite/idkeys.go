package sqlite

import (
	"encoding/hex"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// The events table and the log's leaves keep an event id, an actor id
// and a resource id as a key (migration 0021, issue 58): a canonical id
// (audit.IDPrefix and a lowercase UUID, as every accepted event has) as
// the UUID's 16 bytes, a BLOB, and anything else as the TEXT it is. The
// columns are of type ANY, which keeps each value's type. The 16 bytes
// sort as the canonical text does (hexadecimal digits in order, the
// hyphens at fixed places), so an order by id is the one Elasticsearch
// gives; a TEXT key (a row written behind the service) sorts before
// every BLOB. A query compares a key with the key of its value (idKey,
// uuidKey), never with the text.
//
// Written by hand: it is the canonical UUID text's hex digits and
// nothing more; github.com/google/uuid parses every spelling, where the
// key must be given only to the one spelling that turns back into it.

// idKey is the key of an event id.
func idKey(id string) any {
	rest, ok := strings.CutPrefix(id, audit.IDPrefix)
	if !ok {
		return id
	}
	if b, ok := uuidBytes(rest); ok {
		return b
	}
	return id
}

// idOfKey is the event id of a key as read back (nil, a number or
// anything else: its text).
func idOfKey(v any) string {
	if b, ok := v.([]byte); ok && len(b) == 16 {
		return audit.IDPrefix + uuidText(b)
	}
	return keyText(v)
}

// uuidKey is the key of an actor or resource id (its column's lowercase
// form).
func uuidKey(s string) any {
	if b, ok := uuidBytes(s); ok {
		return b
	}
	return s
}

// uuidOfKey is the id of a uuidKey as read back.
func uuidOfKey(v any) string {
	if b, ok := v.([]byte); ok && len(b) == 16 {
		return uuidText(b)
	}
	return keyText(v)
}

// keyText is a TEXT key as read back.
func keyText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return string(t)
	case nil:
		return ""
	}
	return ""
}

// uuidBytes is the 16 bytes of a UUID in canonical lowercase text
// (8-4-4-4-12 hexadecimal digits), ok false for any other text.
func uuidBytes(s string) ([]byte, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return nil, false
	}
	var digits [32]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			continue
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
			digits[n] = c
			n++
		default:
			return nil, false
		}
	}
	b := make([]byte, 16)
	if _, err := hex.Decode(b, digits[:]); err != nil {
		return nil, false
	}
	return b, true
}

// uuidText is the canonical lowercase text of a UUID's 16 bytes.
func uuidText(b []byte) string {
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}

// uuidPrefixRange is the range of 16-byte keys whose canonical text
// starts with prefix (lowercase), ok false when no canonical UUID does:
// a prefix search (resource:fc8f1af5*) finds the UUIDs kept as bytes
// through it, and the other ids through the text range.
func uuidPrefixRange(prefix string) (lo, hi []byte, ok bool) {
	if len(prefix) > 36 {
		return nil, nil, false
	}
	var loText, hiText [36]byte
	copy(loText[:], "00000000-0000-0000-0000-000000000000")
	copy(hiText[:], "ffffffff-ffff-ffff-ffff-ffffffffffff")
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		hyphen := i == 8 || i == 13 || i == 18 || i == 23
		if hyphen != (c == '-') || !hyphen && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return nil, nil, false
		}
		loText[i], hiText[i] = c, c
	}
	lo, _ = uuidBytes(string(loText[:]))
	hi, _ = uuidBytes(string(hiText[:]))
	return lo, hi, true
}
