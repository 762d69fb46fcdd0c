package elasticsearch

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// appendDoc appends e as the stored document, with its acceptance tag
// (none: nil): the fields of audit.EventFields in their order, the
// timestamp as @timestamp, an empty value left out (required values are
// never empty; actor.ip, mapped as an address, could not hold ""), the
// changed field names after the diff, then what free text indexes.
// Written by hand: reflection-based marshalling was a fifth of the
// indexer's own CPU per event. A test checks that every field of an event
// with every field set decodes back. Raw values (diff, before, after) are
// written as they are: valid JSON, as validation and masking left them.
func appendDoc(b []byte, e *audit.Event, tag []byte) []byte {
	// Room on the stack for the changed field names and the search
	// values of a typical event: the document then costs no allocation
	// beyond a changed value's.
	var changedArr, valuesArr [16]string // valuesArr: appendText's
	changed := e.AppendChangedFields(changedArr[:0])
	b = append(b, '{')
	var m audit.Members
	for i := range audit.EventFields {
		f := &audit.EventFields[i]
		if f.Kind != audit.KindBool && f.IsEmpty(e) {
			continue
		}
		switch f.Kind {
		case audit.KindString:
			b = jsonenc.AppendHTMLString(m.Next(b, f), f.String(e))
		case audit.KindTime:
			b = append(e.Timestamp.AppendTo(append(m.NextAs(b, f, "@timestamp"), '"')), '"')
		case audit.KindBool:
			b = strconv.AppendBool(m.Next(b, f), f.Bool(e))
		case audit.KindRaw:
			b = docRaw(m.Next(b, f), f.Raw(e))
		case audit.KindDiff:
			b = appendDocDiff(m.Next(b, f), e, changed)
			b = docStrings(m.NextAs(b, &changedFields, "changedFields"), changed)
		}
	}
	b = m.Close(b)
	b = appendText(b, e, changed, valuesArr[:0])
	if len(tag) > 0 {
		b = append(jsonenc.AppendField(b, "accept"), '"')
		b = base64.StdEncoding.AppendEncode(b, tag)
		b = append(b, '"')
	}
	return append(b, '}')
}

// changedFields stands for the document's list of changed field names
// (a top-level member) when it is written.
var changedFields = audit.EventField{Name: "changedFields"}

// appendDocDiff appends the diff, its changes in field order.
func appendDocDiff(b []byte, e *audit.Event, fields []string) []byte {
	b = append(b, '{')
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
