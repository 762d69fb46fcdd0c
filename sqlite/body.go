package sqlite

import (
	_ "embed"
	"fmt"
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

// decodeBody decodes a row of tenantID filed under key from its body as
// the events table keeps it (vlog.DecodeStoredRow on its JSON): a body
// that does not unpack is the row's Err, like one that does not decode.
func decodeBody(key, tenantID string, body []byte) vlog.StoredRow {
	js, err := unpackBody(body)
	if err != nil {
		return vlog.StoredRow{Key: key, Err: err}
	}
	return vlog.DecodeStoredRow(key, tenantID, js)
}
