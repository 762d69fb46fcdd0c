package elasticsearch

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// A ticket's refs are written packed: one base64 string of bytes, not an
// array of objects. A batch's ticket repeats, for each of its up to a
// thousand events, the tenant, the backing index and three base64
// members: as JSON objects it was about 360 bytes an event, which the
// cluster parsed and compressed on every write and the sealer decoded
// with reflection on every read (about a fifth of a round's CPU). Packed
// it is about 140, one JSON token for the cluster.
//
// The packed bytes: the version byte 1; the number of distinct strings
// (tenants, indices, routings) and each string; then each ref: its
// tenant's string, its index's and its routing's (each 0 for none, else
// the string's number plus one, the tenant's too), a flags byte, its id,
// its document id unless a flag says which it is, and, with refHashed,
// the event's 32-byte digest (the leaf hash is that of the digest's
// entry, vlog.LeafEntry: the sealer computes it) and its acceptance tag.
// Numbers are uvarints, strings their length then their bytes.
//
// A sealer of a version before the packed form fails on such a ticket
// (refs is a string where it wants an array) and seals nothing until it
// is upgraded: it never deletes a ticket it could not read.
const (
	refDocIsID       = 1 << iota // the document id is the event id
	refDocIsTenantID             // the document id is tenant:id (a shared stream)
	refHashed                    // a created event: digest and tag follow
)

const packVersion = 1

// appendPackedRefs appends refs packed, base64 in a JSON string.
func appendPackedRefs(b []byte, refs []ticketRef) []byte {
	raw := packRefs(make([]byte, 0, 160*len(refs)), refs)
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, raw)
	return append(b, '"')
}

func packRefs(b []byte, refs []ticketRef) []byte {
	table := map[string]int{}
	var strs []string
	num := func(s string) int {
		if s == "" {
			return 0
		}
		n, ok := table[s]
		if !ok {
			n = len(strs) + 1
			table[s] = n
			strs = append(strs, s)
		}
		return n
	}
	nums := make([][3]int, len(refs))
	for i := range refs {
		nums[i] = [3]int{num(refs[i].Tenant), num(refs[i].Index), num(refs[i].Routing)}
	}
	b = append(b, packVersion)
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = appendPackedString(b, s)
	}
	for i := range refs {
		b = appendPackedRef(b, &refs[i], nums[i])
	}
	return b
}

func appendPackedRef(b []byte, r *ticketRef, nums [3]int) []byte {
	for _, n := range nums {
		b = binary.AppendUvarint(b, uint64(n))
	}
	var flags byte
	switch r.DocID {
	case r.ID:
		flags |= refDocIsID
	case r.Tenant + ":" + r.ID:
		flags |= refDocIsTenantID
	}
	if len(r.Digest) == 32 {
		flags |= refHashed // (a leaf hash without a digest is of tickets before the entry format: never written now)
	}
	b = append(b, flags)
	b = appendPackedString(b, r.ID)
	if flags&(refDocIsID|refDocIsTenantID) == 0 {
		b = appendPackedString(b, r.DocID)
	}
	if flags&refHashed != 0 {
		b = append(b, r.Digest...)
		b = appendPackedString(b, string(r.Tag))
	}
	return b
}

func appendPackedString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// ticketRefs reads a ticket's refs: the packed form, or the array of
// objects tickets were written as before it (still in a queue at an
// upgrade), or none.
func ticketRefs(raw json.RawMessage) ([]ticketRef, error) {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case raw[0] == '[':
		var refs []ticketRef
		err := json.Unmarshal(raw, &refs)
		return refs, err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	packed, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("packed refs: %w", err)
	}
	return unpackRefs(packed)
}

var errPacked = errors.New("packed refs: truncated or of another version")

// unpackRefs reads what packRefs wrote.
func unpackRefs(b []byte) ([]ticketRef, error) {
	d := unpacker{b: b}
	if d.byte() != packVersion {
		return nil, errPacked
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errPacked
	}
	strs := make([]string, n)
	for i := range strs {
		if d.err != nil {
			return nil, d.err
		}
		strs[i] = d.string()
	}
	str := func(n uint64) string {
		if n == 0 || n > uint64(len(strs)) {
			return ""
		}
		return strs[n-1]
	}
	var refs []ticketRef
	for d.err == nil && len(d.b) > 0 {
		r := ticketRef{Tenant: str(d.uvarint()), Index: str(d.uvarint()), Routing: str(d.uvarint())}
		flags := d.byte()
		r.ID = d.string()
		switch {
		case flags&refDocIsID != 0:
			r.DocID = r.ID
		case flags&refDocIsTenantID != 0:
			r.DocID = r.Tenant + ":" + r.ID
		default:
			r.DocID = d.string()
		}
		if flags&refHashed != 0 {
			r.Digest = d.bytes(32)
			if tag := d.string(); tag != "" {
				r.Tag = []byte(tag)
			}
		}
		refs = append(refs, r)
	}
	return refs, d.err
}

// unpacker reads packed bytes; the first short read sets err.
type unpacker struct {
	b   []byte
	err error
}

func (d *unpacker) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *unpacker) byte() byte {
	if b := d.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *unpacker) bytes(n int) []byte {
	if d.err != nil || n > len(d.b) {
		d.fail()
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func (d *unpacker) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	return string(d.bytes(int(n)))
}

func (d *unpacker) fail() {
	if d.err == nil {
		d.err = errPacked
	}
	d.b = nil
}
