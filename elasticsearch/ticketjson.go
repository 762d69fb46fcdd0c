package elasticsearch

import (
	"encoding/base64"
	"strconv"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// appendTicket appends t as encoding/json writes it (the same members,
// in the same order, the same omissions), written by hand: the indexer
// queues one ticket per batch and, through encoding/json's reflection,
// its refs took about a tenth of the indexer's CPU (BENCHMARKS.md,
// "Indexer as shipped"). The sealer reads tickets with encoding/json, so
// that is the format; ticketjson_internal_test.go holds the two to the
// same bytes.
func appendTicket(b []byte, t ticket) []byte {
	b = append(b, `{"kind":`...)
	b = jsonenc.AppendHTMLString(b, t.Kind)
	b = strconv.AppendInt(append(b, `,"at":`...), t.At, 10)
	b = strconv.AppendInt(append(b, `,"n":`...), int64(t.N), 10)
	b = append(b, `,"refs":`...)
	if t.Refs == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i := range t.Refs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTicketRef(b, &t.Refs[i])
	}
	return append(b, "]}"...)
}

func appendTicketRef(b []byte, r *ticketRef) []byte {
	b = jsonenc.AppendHTMLString(append(b, `{"t":`...), r.Tenant)
	b = jsonenc.AppendHTMLString(append(b, `,"id":`...), r.ID)
	b = jsonenc.AppendHTMLString(append(b, `,"d":`...), r.DocID)
	if r.Index != "" {
		b = jsonenc.AppendHTMLString(append(b, `,"ix":`...), r.Index)
	}
	if r.Routing != "" {
		b = jsonenc.AppendHTMLString(append(b, `,"r":`...), r.Routing)
	}
	if r.Hash != nil {
		b = appendBase64(append(b, `,"h":`...), r.Hash[:])
	}
	if len(r.Digest) > 0 {
		b = appendBase64(append(b, `,"dg":`...), r.Digest)
	}
	if len(r.Tag) > 0 {
		b = appendBase64(append(b, `,"ac":`...), r.Tag)
	}
	return append(b, '}')
}

func appendBase64(b, raw []byte) []byte {
	return append(base64.StdEncoding.AppendEncode(append(b, '"'), raw), '"')
}
