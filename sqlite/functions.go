package sqlite

import (
	"database/sql/driver"
	"encoding/hex"
	"net/netip"

	msqlite "modernc.org/sqlite"

	"github.com/auditlog/auditlog/audit"
)

// ipKey is an address as the actor_ip_key column holds it: 32 hex digits
// of its 16 bytes, an IPv4 address IPv4-mapped, so that keys sort as the
// addresses do and a CIDR block is one range; "" for no address.
func ipKey(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return ""
	}
	b := a.As16()
	return hex.EncodeToString(b[:])
}

// ipRange is the first and last key of a block.
func ipRange(p netip.Prefix) (lo, hi string) {
	b := p.Masked().Addr().As16()
	bits := p.Bits()
	if p.Addr().Is4() {
		bits += 96
	}
	last := b
	for i := bits; i < 128; i++ {
		last[i/8] |= 0x80 >> (i % 8)
	}
	return hex.EncodeToString(b[:]), hex.EncodeToString(last[:])
}

// auditlog_ip_key(text) is ipKey in SQL, auditlog_search_text(body)
// searchText and auditlog_reason_text(body) reasonText, for the
// migrations that fill columns and the free-text index from the stored
// events.
func init() {
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_search_text", 1, bodyText(searchText))
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_reason_text", 1, bodyText(reasonText))
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_ip_key", 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		s, _ := args[0].(string)
		return ipKey(s), nil
	})
}

// bodyText is the SQL function of text, on a stored event's body: ""
// when the body is not an event (nothing to find).
func bodyText(text func(*audit.Event) string) func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error) {
	return func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		var body []byte
		switch b := args[0].(type) {
		case []byte:
			body = b
		case string:
			body = []byte(b)
		}
		e, err := audit.DecodeStoredEvent(body)
		if err != nil {
			return "", nil
		}
		return text(&e), nil
	}
}
