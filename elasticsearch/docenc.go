package elasticsearch

import (
	"encoding/base64"
	"encoding/json"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// appendDoc appends e as the stored document (the fields of doc, in its
// order), with its acceptance tag (none: nil), written by hand: reflection-based marshalling was a fifth of
// the indexer's own CPU per event. A test checks that it decodes to what
// marshalling toDoc(e) gives. Raw values (diff, before, after) are
// written as they are: valid JSON, as validation and masking left them.
func appendDoc(b []byte, e *audit.Event, tag []byte) []byte {
	b = append(b, `{"@timestamp":"`...)
	b = e.Timestamp.UTC().AppendFormat(b, audit.TimestampLayout)
	b = append(b, `","id":`...)
	b = jsonenc.AppendHTMLString(b, e.ID)
	b = append(b, `,"tenantId":`...)
	b = jsonenc.AppendHTMLString(b, e.TenantID)
	b = append(b, `,"actor":{"id":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.ID)
	b = append(b, `,"email":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.Email)
	b = append(b, `,"role":`...)
	b = jsonenc.AppendHTMLString(b, e.Actor.Role)
	b = jsonenc.AppendOptional(b, "ip", e.Actor.IP, true)
	b = jsonenc.AppendOptional(b, "userAgent", e.Actor.UserAgent, true)
	b = append(b, `},"action":`...)
	b = jsonenc.AppendHTMLString(b, string(e.Action))
	b = append(b, `,"resource":{"type":`...)
	b = jsonenc.AppendHTMLString(b, e.Resource.Type)
	b = append(b, `,"id":`...)
	b = jsonenc.AppendHTMLString(b, e.Resource.ID)
	b = append(b, '}')
	if len(e.Diff) > 0 {
		fields := e.ChangedFields()
		b = append(b, `,"diff":{`...)
		for i, k := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendHTMLString(b, k)
			b = append(b, `:{"from":`...)
			b = docRaw(b, e.Diff[k].From)
			b = append(b, `,"to":`...)
			b = docRaw(b, e.Diff[k].To)
			b = append(b, '}')
		}
		b = append(b, `},"changedFields":`...)
		b = docStrings(b, fields)
	}
	if e.CrossTenant {
		b = append(b, `,"crossTenant":true`...)
	} else {
		b = append(b, `,"crossTenant":false`...)
	}
	b = jsonenc.AppendOptional(b, "category", string(e.Category), true)
	b = jsonenc.AppendOptional(b, "outcome", string(e.Outcome), true)
	b = jsonenc.AppendOptional(b, "reason", e.Reason, true)
	if len(e.Before) > 0 {
		b = docRaw(jsonenc.AppendField(b, "before"), e.Before)
	}
	if len(e.After) > 0 {
		b = docRaw(jsonenc.AppendField(b, "after"), e.After)
	}
	b = jsonenc.AppendOptional(b, "requestId", e.RequestID, true)
	b = jsonenc.AppendOptional(b, "restoredFrom", e.RestoredFrom, true)
	b = jsonenc.AppendOptional(b, "reasonText", e.Reason, true)
	vals := e.SearchValues() // once: values and words both read it
	if v := nonReason(e, vals); len(v) > 0 {
		b = docStrings(jsonenc.AppendField(b, "values"), v)
	}
	if w := joinedWords(e, vals); len(w) > 0 {
		b = docStrings(jsonenc.AppendField(b, "words"), w)
	}
	if len(tag) > 0 {
		b = append(jsonenc.AppendField(b, "accept"), '"')
		b = base64.StdEncoding.AppendEncode(b, tag)
		b = append(b, '"')
	}
	return append(b, '}')
}

// docRaw appends a raw value; absent is null.
func docRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

func docStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendHTMLString(b, s)
	}
	return append(b, ']')
}
