package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// Codec signs and checks cursors. A cursor is opaque to clients; it
// carries the position and is bound, by an HMAC, to the tenant, the filter
// and the sort, so a tampered cursor or one reused with other filters is
// refused.
type Codec struct{ key []byte }

// NewCodec returns a codec signing with key.
func NewCodec(key []byte) *Codec { return &Codec{key: key} }

// Cursor is what a page's next cursor carries: the position the next
// page starts after, and the total counted on the walk's first page.
type Cursor struct {
	After audit.Position
	Total *audit.Total
}

type cursorPayload struct {
	audit.Position
	Sort  string       `json:"s"`
	Total *cursorTotal `json:"t,omitempty"`
}

// cursorTotal is a Total in a cursor, with short names: cursors travel in
// URLs.
type cursorTotal struct {
	Value    int64  `json:"v"`
	Relation string `json:"r"`
}

// binding is what a cursor is bound to: the tenant, the filter and the
// sort, in a canonical form (the normalised filter).
func binding(f audit.Filter, s audit.Sort) []byte {
	b, _ := json.Marshal(struct {
		F    audit.Filter
		S    audit.Sort
		Vers int
	}{f.Normalized(), s, 1})
	return b
}

func (c *Codec) mac(payload []byte, f audit.Filter, s audit.Sort) []byte {
	h := hmac.New(sha256.New, c.key)
	h.Write(payload)
	h.Write([]byte{0})
	h.Write(binding(f, s))
	return h.Sum(nil)
}

// Encode returns the opaque cursor cur of filter f in sort s.
func (c *Codec) Encode(cur Cursor, f audit.Filter, s audit.Sort) string {
	cp := cursorPayload{Position: cur.After, Sort: s.String()}
	if cur.Total != nil {
		cp.Total = &cursorTotal{Value: cur.Total.Value, Relation: cur.Total.Relation}
	}
	payload, _ := json.Marshal(cp)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(c.mac(payload, f, s))
}

// Decode checks cursor against filter f and sort s and returns what it
// carries. It returns EINVALID, naming the field "cursor", when the
// cursor is malformed, tampered with, or was made for another tenant,
// filter or sort.
func (c *Codec) Decode(cursor string, f audit.Filter, s audit.Sort) (Cursor, error) {
	bad := func(msg string) (Cursor, error) {
		return Cursor{}, &audit.Error{Code: audit.EINVALID, Message: "invalid cursor", Fields: []audit.FieldError{{Field: "cursor", Message: msg}}}
	}
	p64, m64, ok := strings.Cut(cursor, ".")
	if !ok {
		return bad("malformed cursor")
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p64)
	mac, err2 := base64.RawURLEncoding.DecodeString(m64)
	if err1 != nil || err2 != nil {
		return bad("malformed cursor")
	}
	if !hmac.Equal(mac, c.mac(payload, f, s)) {
		return bad("the cursor does not belong to this query: it was altered, or made with other filters or another sort")
	}
	var cp cursorPayload
	if err := json.Unmarshal(payload, &cp); err != nil || cp.ID == "" || cp.Sort != s.String() {
		return bad("malformed cursor")
	}
	cur := Cursor{After: cp.Position}
	if cp.Total != nil {
		cur.Total = &audit.Total{Value: cp.Total.Value, Relation: cp.Total.Relation}
	}
	return cur, nil
}
