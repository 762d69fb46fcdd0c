package sqlite

import (
	"encoding/hex"
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
// prefixed with its tenant's mark (tenantPrefix, 0019): a private-use
// character, the tenant id in hex, another private-use character. A
// word's doclist is then one tenant's rows: a query reads only its
// tenant's matches, and a count of a word over all time is read from the
// index alone, where it answered every tenant's rows and each had to be
// looked up in the table to tell its tenant (0.35 s for a word at 500,000
// events of a tenant). The closing character keeps a prefix query of one
// tenant ("ab" + word*) from reaching another's ("abc"). valueBreak
// stays bare: no query asks for it.
const (
	ftsTokenizer = `unicode61 remove_diacritics 0 tokenchars '_'`
	valueBreak   = "\uE000"
	tenantMark   = "\uE001"
	tenantEnd    = "\uE002"
)

// tenantPrefix is the mark of a tenant's words: hex keeps it within one
// token whatever the id holds, and exact (the tokenizer folds case).
func tenantPrefix(tenant string) string {
	return tenantMark + hex.EncodeToString([]byte(tenant)) + tenantEnd
}

// ftsIn is the condition "the row matches" the text index's query
// (its argument).
const ftsIn = "seq IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)"

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
func searchText(e *audit.Event) string {
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
	return string(appendTenantWords(nil, tenantPrefix(e.TenantID), string(b)))
}

// reasonText is what reason: searches: the declared reason, folded.
func reasonText(e *audit.Event) string {
	words := search.Fold(e.Reason)
	if words == "" {
		return ""
	}
	return string(appendTenantWords(nil, tenantPrefix(e.TenantID), words))
}
