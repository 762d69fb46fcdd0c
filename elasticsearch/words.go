package elasticsearch

import (
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// Free text on both stores matches the words of the word model
// (search.AppendFolded), which the service computes: the document
// carries them (mapping version 6), text one value per searchable text of
// the event (its audit.TextFields, changed field names and SearchValues,
// the reason among them), reasonWords the reason's, both analyzed by the
// whitespace analyzer, which only splits at the spaces between the words.
// A cluster without the analysis-common module (the test cluster) has no
// other tokenizer that could, and no accent folding. Elasticsearch's gap
// between the values of one field keeps a phrase within one value.
//
// Documents written before version 6 have no text: they are found through
// search, as they were (search.go), until the lifecycle pass writes them
// again (reanalyze.go).

// appendText appends the members "text" and, when there is a reason,
// "reasonWords". An event without a word has the text [""], so that every
// document of version 6 has a text that exists. A folded word holds letters, digits and underscores,
// which JSON writes as they are; the spaces between them too. values is
// room for the event's search values.
func appendText(b []byte, e *audit.Event, changed, values []string) []byte {
	var texts [8]string
	b = append(jsonenc.AppendField(b, "text"), '[')
	first := true
	for _, v := range e.AppendTextValues(texts[:0]) {
		b = appendTextValue(b, v, &first)
	}
	for _, v := range changed {
		b = appendTextValue(b, v, &first)
	}
	for _, v := range e.AppendSearchValues(values, changed) {
		b = appendTextValue(b, v, &first)
	}
	if first { // no word: an empty string, which exists (reanalyze.go)
		b = append(b, `""`...)
	}
	b = append(b, ']')
	if e.Reason != "" {
		b = append(jsonenc.AppendField(b, "reasonWords"), '"')
		b = append(search.AppendFolded(b, e.Reason), '"')
	}
	return b
}

// appendTextValue appends the words of s as the next element of the
// array (first: none yet), nothing when it has none.
func appendTextValue(b []byte, s string, first *bool) []byte {
	mark := len(b)
	if !*first {
		b = append(b, ',')
	}
	b = append(b, '"')
	n := len(b)
	b = search.AppendFolded(b, s)
	if len(b) == n {
		return b[:mark]
	}
	*first = false
	return append(b, '"')
}

// textWords is the document's text as a value (appendText writes it).
func textWords(e *audit.Event) []string {
	var out []string
	add := func(s string) {
		if w := search.Fold(s); w != "" {
			out = append(out, w)
		}
	}
	for _, v := range e.TextValues() {
		add(v)
	}
	changed := e.ChangedFields()
	for _, v := range changed {
		add(v)
	}
	for _, v := range e.AppendSearchValues(nil, changed) {
		add(v)
	}
	if out == nil {
		out = []string{""}
	}
	return out
}
