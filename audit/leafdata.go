package audit

import (
	"encoding/json"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// appendLeafData appends the canonical encoding of e (LeafData): the keys
// of each object in the order of their UTF-8 bytes, written out here for
// the event's own fields; the raw values (diff's from and to, before,
// after) canonicalized by jsonenc.AppendCanonical. Why by hand: encoding/json
// would take three passes and about 150 allocations an event (marshal,
// decode into maps, encode), the largest part of the indexer's CPU per
// event; no library writes this canonical form without them.
func appendLeafData(b []byte, e *Event) []byte {
	b = append(b, `{"action":`...)
	b = jsonenc.AppendString(b, string(e.Action))
	b = append(b, `,"actor":{"email":`...)
	b = jsonenc.AppendString(b, e.Actor.Email)
	b = append(b, `,"id":`...)
	b = jsonenc.AppendString(b, e.Actor.ID)
	b = append(b, `,"ip":`...)
	b = jsonenc.AppendString(b, e.Actor.IP)
	b = append(b, `,"role":`...)
	b = jsonenc.AppendString(b, e.Actor.Role)
	b = append(b, `,"userAgent":`...)
	b = jsonenc.AppendString(b, e.Actor.UserAgent)
	b = append(b, '}')
	b = appendRawField(b, "after", e.After)
	b = appendRawField(b, "before", e.Before)
	b = jsonenc.AppendOptional(b, "category", string(e.Category), false)
	b = append(b, `,"crossTenant":`...)
	if e.CrossTenant {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	b = append(b, `,"diff":{`...)
	for i, k := range sortedKeys(e.Diff) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, k)
		c := e.Diff[k]
		b = append(b, `:{"from":`...)
		b = jsonenc.AppendCanonical(b, c.From)
		b = append(b, `,"to":`...)
		b = jsonenc.AppendCanonical(b, c.To)
		b = append(b, '}')
	}
	b = append(b, `},"id":`...)
	b = jsonenc.AppendString(b, e.ID)
	b = jsonenc.AppendOptional(b, "outcome", string(e.Outcome), false)
	b = jsonenc.AppendOptional(b, "reason", e.Reason, false)
	b = jsonenc.AppendOptional(b, "requestId", e.RequestID, false)
	b = append(b, `,"resource":{"id":`...)
	b = jsonenc.AppendString(b, e.Resource.ID)
	b = append(b, `,"type":`...)
	b = jsonenc.AppendString(b, e.Resource.Type)
	b = append(b, '}')
	b = jsonenc.AppendOptional(b, "restoredFrom", e.RestoredFrom, false)
	b = append(b, `,"tenantId":`...)
	b = jsonenc.AppendString(b, e.TenantID)
	b = append(b, `,"timestamp":"`...)
	b = e.Timestamp.UTC().AppendFormat(b, TimestampLayout)
	return append(b, `"}`...)
}

// appendRawField appends ,"name":value unless raw is empty (omitempty).
func appendRawField(b []byte, name string, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return b
	}
	return jsonenc.AppendCanonical(jsonenc.AppendField(b, name), raw)
}
