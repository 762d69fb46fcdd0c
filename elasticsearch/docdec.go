package elasticsearch

import (
	"encoding/base64"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/auditlog/auditlog/audit"
)

// decodeStoredDoc decodes a document strictly: no member the document
// does not have, no wrong type, no repeated key, valid UTF-8. The one
// decoding of stored documents (pages, gets, sealing, verification,
// retention): the common shape by audit's fast path
// (audit.DecodeDocument), anything else by go-json-experiment/json,
// which the fast path is held to (FuzzDecodeStoredDoc).
func decodeStoredDoc(src []byte) (doc, error) {
	var d doc
	if decodeDocFast(src, &d) {
		return d, nil
	}
	d = doc{}
	err := jsonv2.Unmarshal(src, &d, jsonv2.RejectUnknownMembers(true))
	return d, err
}

// decodeDocFast is decodeStoredDoc's fast path: false when src is not
// the common shape.
func decodeDocFast(src []byte, d *doc) bool {
	shape := audit.DocumentShape{TimestampKey: "@timestamp", Member: func(key string, raw []byte) bool {
		var ok bool
		switch key {
		case "changedFields":
			d.ChangedFields, ok = audit.DecodeStrings(raw)
		case "text":
			d.Text, ok = audit.DecodeStrings(raw)
		case "reasonWords":
			d.ReasonWords, ok = audit.DecodeString(raw)
		case "values":
			d.Values, ok = audit.DecodeStrings(raw)
		case "words":
			d.Words, ok = audit.DecodeStrings(raw)
		case "reasonText":
			d.ReasonText, ok = audit.DecodeString(raw)
		case "accept":
			d.Accept, ok = decodeBase64(raw)
		}
		return ok
	}}
	var e audit.Event
	if !audit.DecodeDocument(src, &shape, &e) {
		return false
	}
	d.Stamp, e.Timestamp = e.Timestamp, audit.Timestamp{}
	d.storedEvent = storedEvent(e)
	return true
}

// decodeBase64 reads a JSON string of standard base64 with padding, as
// the library decodes a []byte (stricter: never what it refuses); null
// is nil.
func decodeBase64(raw []byte) ([]byte, bool) {
	if string(raw) == "null" {
		return nil, true
	}
	s, ok := audit.DecodeString(raw)
	if !ok || strings.ContainsAny(s, "\r\n") { // the decoder skips them; the library refuses them
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	return b, err == nil
}

// decodeStoredEvent is decodeStoredDoc for a reader that needs only the
// event and its tenant (the export scan): the store's own members are
// checked as decodeStoredDoc checks them (the same documents decode and
// the same are refused) but not kept.
func decodeStoredEvent(src []byte) (audit.Event, error) {
	shape := audit.DocumentShape{TimestampKey: "@timestamp", Member: func(key string, raw []byte) bool {
		switch key {
		case "changedFields", "text", "values", "words":
			return audit.IsStrings(raw)
		case "reasonText", "reasonWords":
			_, ok := audit.DecodeString(raw) // short, and rare
			return ok
		case "accept":
			_, ok := decodeBase64(raw)
			return ok
		}
		return false
	}}
	var e audit.Event
	if audit.DecodeDocument(src, &shape, &e) {
		return e, nil
	}
	d, err := decodeStoredDoc(src)
	return d.event(), err
}
