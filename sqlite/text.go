package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
)

// The text index (events_fts) holds the words of the word model
// (search.AppendFolded), not the event's texts: its tokenizer only splits
// at the spaces between them and lower-cases what is already lower case
// (it removes no diacritics: the words have none left, and folding of its
// own would join words the model keeps apart). Between two values it
// holds valueBreak, a token no searched word can be (a private-use
// character, which the model's words never hold but the tokenizer keeps
// as a token), so that a phrase never spans two fields or two values.
// Migration 0017 rebuilt the index so.
//
// Every word the index holds, and every word a query asks for, is
// prefixed with its tenant's mark (tenantPrefix): a private-use
// character, the tenant's number (tenant_numbers, 0020), another
// private-use character. A word's doclist is then one tenant's rows: a
// query reads only its tenant's matches, and a count of a word over all
// time is read from the index alone, where it answered every tenant's
// rows and each had to be looked up in the table to tell its tenant (0.35
// s for a word at 500,000 events of a tenant). The closing character
// keeps a prefix query of one tenant ("1" + word*) from reaching
// another's ("12"). valueBreak stays bare: no query asks for it.
//
// The number, not the id (0019 marked words with the id in hex): a mark
// of a few bytes instead of 78 for a UUID on every word made the writes
// about 15% slower (the tokenizer reads it with each word). Numbers are
// given in the write transaction of a tenant's first event and never
// change; a query builds its text with markSlot where the mark goes, and
// SQL puts its tenant's mark there (ftsArg), 0 for a tenant without a
// number, which no word holds.
const (
	ftsTokenizer = `unicode61 remove_diacritics 0 tokenchars '_'`
	valueBreak   = "\uE000"
	tenantMark   = "\uE001"
	tenantEnd    = "\uE002"
	markSlot     = "\uE003"
)

// tenantPrefix is the mark of the words of the tenant numbered no.
func tenantPrefix(no int64) string {
	return tenantMark + strconv.FormatInt(no, 10) + tenantEnd
}

// ftsArg is a MATCH argument: the query (the first ?), markSlot before
// each word, with the mark of the tenant (the second ?) put in its place.
const ftsArg = "replace(?, char(57347), char(57345) || coalesce((SELECT no FROM tenant_numbers WHERE tenant_id = ?), 0) || char(57346))"

// ftsIn is the condition "the row matches" the text index's query
// (ftsArg's two arguments).
const ftsIn = "seq IN (SELECT rowid FROM events_fts WHERE events_fts MATCH " + ftsArg + ")"

// tenantIs is the condition "the row is of the tenant" (its one ?, the
// tenant id) on the events table, whose rows name their tenant by number
// (0021): the subquery is read once per statement, and the number is an
// equality on the first column of every index. A tenant without a
// number has no rows.
const tenantIs = "tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?)"

// querier is what tenantNo reads through: the store's readers or a
// transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tenantNo is tenant's number, ok false (and 0, which no row has) when it
// has none.
func tenantNo(ctx context.Context, q querier, tenant string) (int64, bool, error) {
	var no int64
	err := q.QueryRowContext(ctx, `SELECT no FROM tenant_numbers WHERE tenant_id = ?`, tenant).Scan(&no)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant number")
	}
	return no, true, nil
}

// tenantNumber is the number of tenant's marks, given in tx if it has
// none yet.
func tenantNumber(ctx context.Context, tx *sql.Tx, tenant string) (int64, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO tenant_numbers (tenant_id) VALUES (?) ON CONFLICT DO NOTHING`, tenant); err != nil {
		return 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant number")
	}
	var no int64
	if err := tx.QueryRowContext(ctx, `SELECT no FROM tenant_numbers WHERE tenant_id = ?`, tenant).Scan(&no); err != nil {
		return 0, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant number")
	}
	return no, nil
}

// appendTenantWords appends words (folded, spaces between them,
// valueBreak among them) to b, one space between two, each but
// valueBreak after prefix.
func appendTenantWords(b []byte, prefix, words string) []byte {
	for i, w := range strings.Fields(words) {
		if i > 0 {
			b = append(b, ' ')
		}
		if w != valueBreak {
			b = append(b, prefix...)
		}
		b = append(b, w...)
	}
	return b
}

// searchText is what free text searches: e-mail, user agent, resource
// id, the changed field names, the declared reason and the changed values
// (audit.Event.SearchValues), each folded, valueBreak between them.
func searchText(e *audit.Event, no int64) string {
	var arr [32]string
	parts := e.AppendTextValues(arr[:0])
	n := len(parts)
	parts = e.AppendChangedFields(parts)
	// The changed names are read while values are appended after them.
	parts = e.AppendSearchValues(parts, parts[n:])
	var b []byte
	for i, p := range parts {
		if i > 0 {
			b = append(b, " "+valueBreak+" "...)
		}
		b = search.AppendFolded(b, p)
	}
	if len(b) == 0 {
		return ""
	}
	return string(appendTenantWords(nil, tenantPrefix(no), string(b)))
}

// reasonText is what reason: searches: the declared reason, folded.
func reasonText(e *audit.Event, no int64) string {
	words := search.Fold(e.Reason)
	if words == "" {
		return ""
	}
	return string(appendTenantWords(nil, tenantPrefix(no), words))
}
