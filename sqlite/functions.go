package sqlite

import (
	"database/sql/driver"
	"encoding/hex"
	"net/netip"

	msqlite "modernc.org/sqlite"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/vlog"
)

// ipKey is an address as the actor_ip_key column holds it (0021): its
// 16 bytes, an IPv4 address IPv4-mapped, so that keys sort as the
// addresses do and a CIDR block is one range; empty for no address.
func ipKey(s string) []byte {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return []byte{}
	}
	b := a.As16()
	return b[:]
}

// ipRange is the first and last key of a block.
func ipRange(p netip.Prefix) (lo, hi []byte) {
	b := p.Masked().Addr().As16()
	bits := p.Bits()
	if p.Addr().Is4() {
		bits += 96
	}
	last := b
	for i := bits; i < 128; i++ {
		last[i/8] |= 0x80 >> (i % 8)
	}
	return b[:], last[:]
}

// auditlog_ip_key(text) is ipKey in SQL, auditlog_tenant_search_text(body,
// no) searchText and auditlog_tenant_reason_text(body, no) reasonText (no:
// the tenant's number), for the migrations that fill columns and the
// free-text index from the stored events. auditlog_search_text(body) and
// auditlog_reason_text(body), which the migrations that filled the index
// before (0009, 0017, 0019) call, give "": 0020 rebuilds the index from
// the events, so an upgrade does not fill it three times before; auditlog_event_json(body) is a body's event as JSON text.
func init() {
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_event_json", 1, eventJSON)
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_tenant_search_text", 2, bodyText(searchText))
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_tenant_reason_text", 2, bodyText(reasonText))
	for _, name := range []string{"auditlog_search_text", "auditlog_reason_text"} {
		msqlite.MustRegisterDeterministicScalarFunction(name, 1, func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error) {
			return "", nil
		})
	}
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_ip_key", 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		s, _ := args[0].(string)
		return hex.EncodeToString(ipKey(s)), nil // 0008's column: the key in hex
	})
	registerKeyFunctions()
}

// registerKeyFunctions registers the functions of migration 0021 (and of
// anyone reading the table by hand): auditlog_id_key(text) and
// auditlog_uuid_key(text), the keys idKey and uuidKey; auditlog_id_of(key)
// and auditlog_uuid_of(key), their text; auditlog_elide_body(body, id,
// tenant, actor_id, resource_id), elidedBody; auditlog_entry_hash(id,
// digest), the leaf hash of an entry.
func registerKeyFunctions() {
	for name, f := range map[string]func(string) any{"auditlog_id_key": idKey, "auditlog_uuid_key": uuidKey} {
		msqlite.MustRegisterDeterministicScalarFunction(name, 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			return f(keyText(args[0])), nil
		})
	}
	for name, f := range map[string]func(any) string{"auditlog_id_of": idOfKey, "auditlog_uuid_of": uuidOfKey} {
		msqlite.MustRegisterDeterministicScalarFunction(name, 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			return f(args[0]), nil
		})
	}
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_elide_body", 5, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		return elidedBody(argBytes(args[0]), rowKeys{keyText(args[1]), keyText(args[2]), keyText(args[3]), keyText(args[4])}), nil
	})
	msqlite.MustRegisterDeterministicScalarFunction("auditlog_entry_hash", 2, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		d := argBytes(args[1])
		if len(d) != 32 {
			return nil, nil
		}
		h := vlog.EntryHash(keyText(args[0]), [32]byte(d))
		return h[:], nil
	})
}

// bodyText is the SQL function of text, on a stored event's body: ""
// when the body is not an event (nothing to find).
func bodyText(text func(*audit.Event, int64) string) func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error) {
	return func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		js, err := unpackBody(argBytes(args[0]))
		if err != nil {
			return "", nil
		}
		e, err := audit.DecodeStoredEvent(js)
		if err != nil {
			return "", nil
		}
		no, _ := args[1].(int64)
		return text(&e, no), nil
	}
}

// eventJSON is auditlog_event_json(body): the stored event's JSON of a
// body as the events table keeps it (body.go), for SQL that reads the
// event's fields (->>); NULL when the body does not unpack.
func eventJSON(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	js, err := unpackBody(argBytes(args[0]))
	if err != nil {
		return nil, nil
	}
	return string(js), nil
}

// argBytes is a SQL function's BLOB or TEXT argument as bytes (nil for
// any other value).
func argBytes(v driver.Value) []byte {
	switch b := v.(type) {
	case []byte:
		return b
	case string:
		return []byte(b)
	}
	return nil
}
