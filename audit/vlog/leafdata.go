package vlog

import (
	"slices"
	"sort"
	"strconv"

	"github.com/auditlog/auditlog/audit"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// appendLeafData appends the canonical encoding of e (LeafData): the
// fields of EventFields, optional ones left out when empty, the keys of
// each object in the order of their UTF-8 bytes (leafOrder), strings
// without HTML escaping, the raw values (diff's from and to, before,
// after) canonicalized by jsonenc.AppendCanonical. Why not encoding/json:
// it would take three passes and about 150 allocations an event
// (marshal, decode into maps, encode), the largest part of the indexer's
// CPU per event; no library writes this canonical form without them.
func appendLeafData(b []byte, e *audit.Event) []byte {
	b = append(b, '{')
	var m audit.Members
	for _, f := range leafOrder {
		if f.Optional && f.IsEmpty(e) {
			continue
		}
		b = m.Next(b, f)
		switch f.Kind {
		case audit.KindString:
			b = jsonenc.AppendString(b, f.String(e))
		case audit.KindTime:
			b = append(e.Timestamp.AppendTo(append(b, '"')), '"')
		case audit.KindBool:
			b = strconv.AppendBool(b, f.Bool(e))
		case audit.KindRaw:
			b = jsonenc.AppendCanonical(b, f.Raw(e))
		case audit.KindDiff:
			b = appendCanonicalDiff(b, e.Diff)
		}
	}
	return append(m.Close(b), '}')
}

// appendCanonicalDiff appends the diff with sorted field names, each
// change's from and to canonicalized.
func appendCanonicalDiff(b []byte, diff map[string]audit.Change) []byte {
	b = append(b, '{')
	var small [16]string // the keys of most diffs, without a heap slice
	keys := small[:0]
	for k := range diff {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, k)
		c := diff[k]
		b = append(b, `:{"from":`...)
		b = jsonenc.AppendCanonical(b, c.From)
		b = append(b, `,"to":`...)
		b = jsonenc.AppendCanonical(b, c.To)
		b = append(b, '}')
	}
	return append(b, '}')
}

// leafOrder is EventFields in the canonical order: by the key at the
// top (a nested field's object), then by the key in the nested object,
// each compared by its UTF-8 bytes.
var leafOrder = func() []*audit.EventField {
	out := make([]*audit.EventField, len(audit.EventFields))
	for i := range audit.EventFields {
		out[i] = &audit.EventFields[i]
	}
	top := func(f *audit.EventField) string {
		if p := f.Parent(); p != "" {
			return p
		}
		return f.Name
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := top(out[i]), top(out[j]); a != b {
			return a < b
		}
		return out[i].Key() < out[j].Key()
	})
	return out
}()
