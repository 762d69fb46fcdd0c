package sqlite

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/vlog"
)

// The events table keeps each event's stored JSON (audit.Event's
// AppendStoredJSON) compressed: a Zstandard frame made with a dictionary
// built from generated events (sqlite/bodydict, by
// sqlite/internal/genbodydict), after one byte naming that dictionary.
// An event of about 600 bytes takes about 170 (issue 58: the bodies were
// 600 of the 2,700 bytes an event took). The dictionary is part of the
// binary, never of the store: a row names it, and a dictionary once
// shipped is never changed, only added to under a new byte.
//
// A body that starts with '{' is the JSON itself: every row written
// before compression (they stay as they are; nothing is rewritten on
// upgrade), and any row written so by hand. Both read alike.
const (
	bodyJSON  = '{'
	bodyZstd1 = 0x01 // bodydict/v1.zdict
)

//go:embed bodydict/v1.zdict
var bodyDict1 []byte

// maxBodyJSON bounds what one body may decompress to: an event is at
// most audit.MaxEventBytes as received, and its stored form is no larger
// than twice that. A row crafted to expand further is unreadable, never
// a memory spike.
const maxBodyJSON = 2 * audit.MaxEventBytes

var bodyCodec = sync.OnceValues(func() (*zstd.Encoder, *zstd.Decoder) {
	// The fastest level: with the dictionary it compresses these events
	// within 2% of the better levels, at a third of their time or less.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderDict(bodyDict1), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))
	if err != nil {
		panic(fmt.Sprintf("sqlite: the body dictionary: %v", err))
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(bodyDict1), zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxBodyJSON))
	if err != nil {
		panic(fmt.Sprintf("sqlite: the body dictionary: %v", err))
	}
	return enc, dec
})

// packBody appends to dst the body the events table keeps for an
// event's stored JSON.
func packBody(dst, js []byte) []byte {
	enc, _ := bodyCodec()
	return enc.EncodeAll(js, append(dst, bodyZstd1))
}

// unpackBody is the stored JSON of a body as the events table keeps it.
// It fails, EINVALID, on a body of no known encoding or one that does not
// decompress within maxBodyJSON.
func unpackBody(body []byte) ([]byte, error) {
	if len(body) == 0 {
		return nil, audit.Errorf(audit.EINVALID, "the stored body is empty")
	}
	switch body[0] {
	case bodyJSON:
		return body, nil
	case bodyZstd1:
		_, dec := bodyCodec()
		js, err := dec.DecodeAll(body[1:], nil)
		if err != nil {
			return nil, audit.Errorf(audit.EINVALID, "the stored body does not decompress: %v", err)
		}
		return js, nil
	}
	return nil, audit.Errorf(audit.EINVALID, "the stored body is of no known encoding (first byte 0x%02x)", body[0])
}

// rowKeys are what a row's event is filed under: its tenant (the
// query's), and the columns its body may leave out (elide): the event id
// and the actor's and resource's ids as their columns keep them
// (lowercased).
type rowKeys struct {
	id, tenant, actorID, resourceID string
}

// elide is e as a body keeps it (migration 0021): without its id, which
// the row's id column holds, and without the actor's and resource's ids
// when their columns (lowercased) hold them as they are; these UUIDs were
// a third of a compressed body. An empty field is filled from the column
// when the row is read (fill). The tenant id stays: a row is shown to a
// tenant only when its body names that tenant (vlog.CheckedRow), so a row
// moved to another tenant's number behind the service is unreadable there,
// never that tenant's event.
func elide(e audit.Event) audit.Event {
	e.ID = ""
	if e.Actor.ID == strings.ToLower(e.Actor.ID) {
		e.Actor.ID = ""
	}
	if e.Resource.ID == strings.ToLower(e.Resource.ID) {
		e.Resource.ID = ""
	}
	return e
}

// fill gives e the fields its body left out, from the row's columns.
// A body of any age reads so: a field it holds is its own.
func fill(e *audit.Event, k rowKeys) {
	if e.ID == "" {
		e.ID = k.id
	}
	if e.Actor.ID == "" {
		e.Actor.ID = k.actorID
	}
	if e.Resource.ID == "" {
		e.Resource.ID = k.resourceID
	}
}

// decodeBody decodes a row filed under k from its body as the events
// table keeps it, its left-out fields filled from k (vlog.CheckedRow: a
// body that does not unpack or decode is the row's Err, like one of
// another id or tenant).
func decodeBody(k rowKeys, body []byte) vlog.StoredRow {
	js, err := unpackBody(body)
	if err != nil {
		return vlog.StoredRow{Key: k.id, Err: err}
	}
	return decodeJSON(k, js)
}

// decodeJSON is decodeBody of an unpacked body.
func decodeJSON(k rowKeys, js []byte) vlog.StoredRow {
	e, err := audit.DecodeStoredEvent(js)
	if err != nil {
		return vlog.StoredRow{Key: k.id, Err: err}
	}
	fill(&e, k)
	return vlog.CheckedRow(k.id, k.tenant, e, nil)
}

// elidedBody is auditlog_elide_body(body, id, tenant, actor_id,
// resource_id) of migration 0021: the body packed as the table keeps one
// now (elide, compressed), or body as it is when it does not decode, is
// not the event its columns name, or would not read back as the same
// event.
func elidedBody(body []byte, k rowKeys) []byte {
	js, err := unpackBody(body)
	if err != nil {
		return body
	}
	e, err := audit.DecodeStoredEvent(js)
	if err != nil || e.ID != k.id || e.TenantID != k.tenant {
		return body
	}
	short := elide(e)
	out, err := short.AppendStoredJSON(nil)
	if err != nil {
		return body
	}
	back := decodeJSON(k, out)
	if back.Err != nil || !bytes.Equal(vlog.LeafData(back.Event), vlog.LeafData(e)) {
		return body
	}
	return packBody(nil, out)
}

// keyedBody is what a read selects of an events row to decode its event:
// the body and the columns it may leave out (the tenant is the query's).
const keyedBody = "body, id, actor_id, resource_id"

// keyedRow is a row read as keyedBody.
type keyedRow struct {
	body                []byte
	id, actor, resource any
}

// dest is where a Scan of keyedBody goes.
func (r *keyedRow) dest() []any { return []any{&r.body, &r.id, &r.actor, &r.resource} }

// keys are the row's keys, in tenant.
func (r *keyedRow) keys(tenant string) rowKeys {
	return rowKeys{id: idOfKey(r.id), tenant: tenant, actorID: uuidOfKey(r.actor), resourceID: uuidOfKey(r.resource)}
}

// decode is the row's event, in tenant (decodeBody).
func (r *keyedRow) decode(tenant string) vlog.StoredRow { return decodeBody(r.keys(tenant), r.body) }
