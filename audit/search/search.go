package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// searchFields are the qualifiers a user may type, by lower-cased name.
var searchFields = map[string]audit.SearchField{
	"actor": audit.SearchActor, "actor.id": audit.SearchActorID, "role": audit.SearchRole, "ip": audit.SearchIP, "request": audit.SearchRequest, "reason": audit.SearchReason,
	"action": audit.SearchAction, "type": audit.SearchType,
	"resource": audit.SearchResource, "category": audit.SearchCategory, "outcome": audit.SearchOutcome,
	"crosstenant": audit.SearchCrossTenant, "created": audit.SearchCreated,
}

// Bounds of one search, so that its cost on either store stays bounded:
// the text, the terms, the values of all terms together, and the
// prefixes. A prefix is what costs: a full-text index answers it by
// expanding it to every token it starts (a one-letter prefix is most of
// the index), so there are at most MaxQPrefixes of at least
// MinPrefixLength letters or digits each, the bound free text always had.
const (
	MaxQBytes       = 512
	MaxQTerms       = 16
	MaxQValues      = 32
	MaxQPrefixes    = 8
	MinPrefixLength = 2
)

// Parse parses q into free text (the plain words and phrases, as
// Filter.Q) and terms (Filter.Terms). It returns an EINVALID error with
// one FieldError "q" per term that does not parse, naming the term.
func Parse(q string) (text string, terms []audit.Term, err error) {
	if len(q) > MaxQBytes {
		return "", nil, searchError([]string{fmt.Sprintf("must be at most %d characters", MaxQBytes)})
	}
	if !audit.CleanText(q) { // a stream's filter or a saved search comes in a JSON body, where the query string's rule does not reach
		return "", nil, searchError([]string{"must be UTF-8 text without control characters"})
	}
	toks, msg := tokenize(q)
	if msg != "" {
		return "", nil, searchError([]string{msg})
	}
	var words []string
	var msgs []string
	for _, g := range orGroups(toks, &msgs) {
		t, word, m := parseGroup(g)
		switch {
		case m != "":
			msgs = append(msgs, fmt.Sprintf("%q: %s", strings.Join(g, " OR "), m))
		case word != "" && pasted(word):
			terms = append(terms, audit.Term{Field: audit.SearchAny, Values: []audit.TermValue{textValue(word)}})
		case word != "":
			words = append(words, word)
		default:
			terms = append(terms, t)
		}
	}
	msgs = append(msgs, checkBounds(words, terms)...)
	if len(msgs) > 0 {
		return "", nil, searchError(msgs)
	}
	return strings.Join(words, " "), terms, nil
}

func searchError(msgs []string) error {
	fe := make([]audit.FieldError, len(msgs))
	for i, m := range msgs {
		fe[i] = audit.FieldError{Field: "q", Message: m}
	}
	return &audit.Error{Code: audit.EINVALID, Message: "invalid search", Fields: fe}
}

// checkBounds applies MaxQTerms, MaxQValues and MaxQPrefixes.
func checkBounds(words []string, terms []audit.Term) []string {
	n, values, prefixes := len(words)+len(terms), len(words), 0
	for _, w := range words {
		if strings.HasSuffix(w, "*") {
			prefixes++
		}
	}
	for _, t := range terms {
		values += len(t.Values)
		for _, v := range t.Values {
			if v.Prefix {
				prefixes++
			}
		}
	}
	var msgs []string
	if n > MaxQTerms {
		msgs = append(msgs, fmt.Sprintf("must have at most %d terms", MaxQTerms))
	}
	if values > MaxQValues {
		msgs = append(msgs, fmt.Sprintf("must have at most %d values in all", MaxQValues))
	}
	if prefixes > MaxQPrefixes {
		msgs = append(msgs, fmt.Sprintf("must have at most %d prefixes (*)", MaxQPrefixes))
	}
	return msgs
}

// orGroups joins tokens around OR: each group is one term or several ORed.
func orGroups(toks []string, msgs *[]string) [][]string {
	var groups [][]string
	for i := 0; i < len(toks); i++ {
		if toks[i] == "OR" {
			if len(groups) == 0 || i == len(toks)-1 || toks[i+1] == "OR" {
				*msgs = append(*msgs, "OR needs a term on each side")
				continue
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], toks[i+1])
			i++
			continue
		}
		groups = append(groups, []string{toks[i]})
	}
	return groups
}

// parseGroup parses one term, or terms joined by OR into one: a plain
// word or phrase comes back as word, the rest as a Term.
func parseGroup(g []string) (t audit.Term, word, msg string) {
	for i, tok := range g {
		ti, w, m := parseTerm(tok)
		if m != "" {
			return audit.Term{}, "", m
		}
		if len(g) == 1 && w != "" {
			return audit.Term{}, w, ""
		}
		if w != "" {
			ti = audit.Term{Field: audit.SearchAny, Values: []audit.TermValue{textValue(w)}}
		}
		if i == 0 {
			t = ti
			continue
		}
		if ti.Field != t.Field || ti.Negate || t.Negate || t.Field == audit.SearchCreated {
			return audit.Term{}, "", "OR joins terms of one qualifier, not negated, and not created"
		}
		t.Values = append(t.Values, ti.Values...)
	}
	return t, "", ""
}

func textValue(w string) audit.TermValue {
	stem, prefix := strings.CutSuffix(w, "*")
	return audit.TermValue{Text: strings.Trim(stem, `"`), Prefix: prefix}
}

// parseTerm parses one token.
func parseTerm(tok string) (t audit.Term, word, msg string) {
	neg := strings.HasPrefix(tok, "-") && len(tok) > 1
	body := tok
	if neg {
		body = tok[1:]
	}
	name, raw, qualified := strings.Cut(body, ":")
	if !qualified || strings.HasPrefix(body, `"`) || !isQualifierName(name) {
		if msg := checkFreeText(body); msg != "" {
			return audit.Term{}, "", msg
		}
		if neg {
			return audit.Term{Field: audit.SearchAny, Negate: true, Values: []audit.TermValue{textValue(body)}}, "", ""
		}
		return audit.Term{}, body, ""
	}
	f, ok := searchFields[strings.ToLower(name)]
	if !ok {
		return audit.Term{}, "", fmt.Sprintf("unknown qualifier %q (known: %s; quote a word that holds a colon)", name, qualifierNames())
	}
	t, msg = parseValues(f, raw)
	t.Negate = neg
	return t, "", msg
}

func isQualifierName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '_')
	}) < 0
}

func qualifierNames() string {
	names := make([]string, 0, len(searchFields))
	for _, f := range searchFields {
		names = append(names, string(f))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
