package streaming

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/mask"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/ocsf"
)

// maskLabel separates the streams' hash keys from every other use of the
// deployment's masking key.
const maskLabel = "auditlog stream mask v1"

// maskKey is the key of st's hashes (stream.MaskHash): HMAC-SHA-256 under
// the Streamer's MaskKey of the tenant and the stream id. The receiver
// never gets it (a batch carries the stream id, so a key derived from
// the id alone would let any receiver hash a list of known e-mails and
// match them); equal values still match within the stream, and two
// streams' hashes differ. nil when st hashes nothing. Errors: EINTERNAL
// when st hashes a field and the Streamer has no MaskKey (nothing is sent
// with a weaker hash).
func (s *Streamer) maskKey(st *stream.Stream) ([]byte, error) {
	hashes := false
	for _, mode := range st.Mask {
		hashes = hashes || mode == stream.MaskHash
	}
	switch {
	case !hashes:
		return nil, nil
	case len(s.MaskKey) < mask.MinKey:
		return nil, audit.Errorf(audit.EINTERNAL, "stream %s hashes personal fields and this process has no masking key to key them with", st.ID)
	}
	m := hmac.New(sha256.New, s.MaskKey)
	for _, part := range []string{maskLabel, st.TenantID, st.ID} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return m.Sum(nil), nil
}

// encode is e, the leaf at index leaf of the tenant's log, in the
// stream's format (the API's Event JSON, or OCSF), its personal fields
// hashed under key or dropped as the stream's Mask says.
func encode(st *stream.Stream, key []byte, e audit.Event, leaf uint64) (json.RawMessage, error) {
	if st.Format == stream.FormatOCSF {
		return ocsf.Encode(masked(st, key, e), leaf)
	}
	raw, err := e.AppendJSON(make([]byte, 0, 1024)) // as json.Marshal writes it, without its second pass
	if err != nil || len(st.Mask) == 0 {
		return raw, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	for field, mode := range st.Mask {
		f := audit.LookupEventField(field)
		if f == nil {
			continue
		}
		obj := doc
		if p := f.Parent(); p != "" {
			obj, _ = doc[p].(map[string]any)
		}
		v, ok := obj[f.Key()].(string)
		switch {
		case !ok:
		case mode == stream.MaskDrop:
			delete(obj, f.Key())
		case mode == stream.MaskHash:
			obj[f.Key()] = hash(key, v)
		}
	}
	return json.Marshal(doc)
}

// masked is e with its personal fields hashed under key or emptied as the
// stream's Mask says (an empty field is left out of OCSF).
func masked(st *stream.Stream, key []byte, e audit.Event) audit.Event {
	for field, mode := range st.Mask {
		p := e.PersonalField(field)
		switch {
		case p == nil || *p == "":
		case mode == stream.MaskDrop:
			*p = ""
		case mode == stream.MaskHash:
			*p = hash(key, *p)
		}
	}
	return e
}

func hash(key []byte, v string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(v))
	return stream.MaskedPrefix + hex.EncodeToString(m.Sum(nil))
}
