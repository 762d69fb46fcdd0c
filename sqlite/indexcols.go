package sqlite

import (
	"bytes"
	"database/sql"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// indexColumns are the columns of events the store keeps beside the body
// for filtering, sorting and statistics, in the order of indexValues.
// Each is derived from the event: the insert writes indexValues, and log
// verify recomputes them from the sealed body and names a row whose
// columns say otherwise (misindexed), so that an edited column cannot
// hide an event from a filter while the proof says ok (issue 41).
//
// The tenant is its number, the ids and the address their keys
// (migration 0021, idkeys.go).
var indexColumns = []string{"id", "tenant_no", "ts", "actor_id", "actor_email_lc", "action", "resource_type", "resource_id",
	"cross_tenant", "category", "outcome", "actor_role", "actor_ip_key", "request_id"}

// indexValues are the values of indexColumns for e, of the tenant
// numbered no.
func indexValues(e *audit.Event, no int64) []any {
	return []any{idKey(e.ID), no, e.Timestamp.UnixMilli(), uuidKey(strings.ToLower(e.Actor.ID)),
		strings.ToLower(e.Actor.Email), string(e.Action), e.Resource.Type, uuidKey(strings.ToLower(e.Resource.ID)), boolInt(e.CrossTenant),
		string(e.Category), string(e.Outcome), e.Actor.Role, ipKey(e.Actor.IP), e.RequestID}
}

// misindexed names the columns whose stored values (as read, in the
// order of indexColumns) differ from those e implies in the tenant
// numbered no: in value or in type (an id kept as text where its key is
// bytes is not found by a query for it).
func misindexed(e *audit.Event, no int64, stored []any) []string {
	var out []string
	for i, want := range indexValues(e, no) {
		if i < len(stored) && !sameCell(stored[i], want) {
			out = append(out, indexColumns[i])
		}
	}
	return out
}

// sameCell reports whether a value read back is the one written: bytes
// as bytes, text as text, numbers as numbers.
func sameCell(got, want any) bool {
	switch w := want.(type) {
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(g, w)
	case string:
		g, ok := got.(string)
		return ok && g == w
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// indexedRowColumns are what indexedRow reads of an events row.
var indexedRowColumns = strings.Join(indexColumns, ", ") + ", body, seq, accept"

// indexedRow reads events rows (indexedRowColumns) one at a time, for
// the verifier's scan and the repair: the row's index columns as stored
// (cols), its seq, and its body decoded on its own.
type indexedRow struct {
	cols []any
	seq  int64
	dest []any
}

func newIndexedRow() *indexedRow {
	r := &indexedRow{cols: make([]any, len(indexColumns))}
	r.dest = make([]any, len(indexColumns)+3)
	for i := range r.cols {
		r.dest[i] = &r.cols[i]
	}
	r.dest[len(indexColumns)+1] = &r.seq
	return r
}

// scan reads the current row of rows, its body decoded as a stored row of
// tenantID (decodeBody: a malformed body is the row's Err).
func (r *indexedRow) scan(rows *sql.Rows, tenantID string) (vlog.StoredRow, error) {
	var body []byte
	var tag []byte
	r.dest[len(indexColumns)], r.dest[len(indexColumns)+2] = &body, &tag
	if err := rows.Scan(r.dest...); err != nil {
		return vlog.StoredRow{}, err
	}
	row := decodeBody(rowKeys{id: idOfKey(r.cols[0]), tenant: tenantID, actorID: uuidOfKey(r.cols[3]), resourceID: uuidOfKey(r.cols[7])}, body)
	row.Tag = tag
	return row, nil
}
