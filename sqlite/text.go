package sqlite

import (
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
const (
	ftsTokenizer = `unicode61 remove_diacritics 0 tokenchars '_'`
	valueBreak   = "\uE000"
)

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
	return string(b)
}

// reasonText is what reason: searches: the declared reason, folded.
func reasonText(e *audit.Event) string { return search.Fold(e.Reason) }
