package audit

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The search language of q (the API's q parameter and the panel's search
// box), one grammar for both stores:
//
//	query   = term { " " term }
//	term    = [ "-" ] ( qualifier ":" values | word | '"' phrase '"' )
//	values  = value { "," value }       ORed; a value may be "quoted"
//	t1 OR t2                            ORs two terms of one qualifier
//
// Terms are ANDed. A qualifier names a field (SearchField); a bare word or
// phrase is free text (the actor's e-mail, user agent, resource id,
// changed field names, the operator's declared reason and the changed
// values: Event.SearchValues), as Filter.Q always was. reason: matches
// the words of the declared reason in order (a phrase), like free text. A value or word ending in
// * is a prefix of at least MinPrefixLength letters or digits (actor and
// free text only). created takes >, >=, <, <= before a date or instant,
// a day (2026-11-11, the whole UTC day) or a range a..b (days inclusive).
//
// An ip: value is an address or a CIDR block, IPv4 or IPv6; it is kept
// as a block (an address is a /32 or /128), an IPv4-mapped IPv6 address
// as its IPv4 form.
//
// Examples: `actor:grace*  -action:access  category:security,cross_tenant`,
// `type:ivr created:>=2026-11-01 "welcome"`, `action:create OR action:delete`.

// SearchField is a qualifier of the search language.
type SearchField string

// The qualifiers, each the field it filters.
const (
	SearchActor       SearchField = "actor"       // actor.email, exact or prefix
	SearchActorID     SearchField = "actor.id"    // actor.id
	SearchRole        SearchField = "role"        // actor.role
	SearchIP          SearchField = "ip"          // actor.ip, an address or a CIDR block
	SearchRequest     SearchField = "request"     // requestId
	SearchReason      SearchField = "reason"      // reason, its words in order
	SearchAction      SearchField = "action"      // action
	SearchType        SearchField = "type"        // resource.type
	SearchResource    SearchField = "resource"    // resource.id
	SearchCategory    SearchField = "category"    // category
	SearchOutcome     SearchField = "outcome"     // outcome
	SearchCrossTenant SearchField = "crossTenant" // crossTenant, true or false
	SearchCreated     SearchField = "created"     // timestamp, compared or a range
	// SearchText is free text only: a negated or ORed word or phrase,
	// as searches parsed before SearchAny stored it.
	SearchText SearchField = "text"
	// SearchAny is a pasted value: free text, and, when the value is one
	// word (Paste), the event whose id, request id, actor e-mail or
	// resource id it is, or whose actor IP it is or holds. A word that is
	// more than letters (an IP, an e-mail, an id, a URL) and every negated
	// or ORed word or phrase is one; a plain word of letters, a phrase and
	// a prefix alone stay in Filter.Q, free text only.
	SearchAny SearchField = "any"
)

// searchFields are the qualifiers a user may type, by lower-cased name.
var searchFields = map[string]SearchField{
	"actor": SearchActor, "actor.id": SearchActorID, "role": SearchRole, "ip": SearchIP, "request": SearchRequest, "reason": SearchReason,
	"action": SearchAction, "type": SearchType,
	"resource": SearchResource, "category": SearchCategory, "outcome": SearchOutcome,
	"crosstenant": SearchCrossTenant, "created": SearchCreated,
}

// Term is one term of a search: its values ORed (Values, or for created
// the instants [From, To)), the whole negated with Negate.
type Term struct {
	Field  SearchField `json:"f"`
	Negate bool        `json:"n,omitempty"`
	Values []TermValue `json:"v,omitempty"`
	From   *time.Time  `json:"from,omitempty"`
	To     *time.Time  `json:"to,omitempty"`
}

// TermValue is one value: matched exactly, or as a prefix.
type TermValue struct {
	Text   string `json:"t"`
	Prefix bool   `json:"p,omitempty"`
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

// ParseSearch parses q into free text (the plain words and phrases, as
// Filter.Q) and terms (Filter.Terms). It returns an EINVALID error with
// one FieldError "q" per term that does not parse, naming the term.
func ParseSearch(q string) (text string, terms []Term, err error) {
	if len(q) > MaxQBytes {
		return "", nil, searchError([]string{fmt.Sprintf("must be at most %d characters", MaxQBytes)})
	}
	if !CleanText(q) { // a stream's filter or a saved search comes in a JSON body, where the query string's rule does not reach
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
			terms = append(terms, Term{Field: SearchAny, Values: []TermValue{textValue(word)}})
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
	fe := make([]FieldError, len(msgs))
	for i, m := range msgs {
		fe[i] = FieldError{Field: "q", Message: m}
	}
	return &Error{Code: EINVALID, Message: "invalid search", Fields: fe}
}

// checkBounds applies MaxQTerms, MaxQValues and MaxQPrefixes.
func checkBounds(words []string, terms []Term) []string {
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
func parseGroup(g []string) (t Term, word, msg string) {
	for i, tok := range g {
		ti, w, m := parseTerm(tok)
		if m != "" {
			return Term{}, "", m
		}
		if len(g) == 1 && w != "" {
			return Term{}, w, ""
		}
		if w != "" {
			ti = Term{Field: SearchAny, Values: []TermValue{textValue(w)}}
		}
		if i == 0 {
			t = ti
			continue
		}
		if ti.Field != t.Field || ti.Negate || t.Negate || t.Field == SearchCreated {
			return Term{}, "", "OR joins terms of one qualifier, not negated, and not created"
		}
		t.Values = append(t.Values, ti.Values...)
	}
	return t, "", ""
}

func textValue(w string) TermValue {
	stem, prefix := strings.CutSuffix(w, "*")
	return TermValue{Text: strings.Trim(stem, `"`), Prefix: prefix}
}

// parseTerm parses one token.
func parseTerm(tok string) (t Term, word, msg string) {
	neg := strings.HasPrefix(tok, "-") && len(tok) > 1
	body := tok
	if neg {
		body = tok[1:]
	}
	name, raw, qualified := strings.Cut(body, ":")
	if !qualified || strings.HasPrefix(body, `"`) || !isQualifierName(name) {
		if msg := checkWord(body); msg != "" {
			return Term{}, "", msg
		}
		if neg {
			return Term{Field: SearchAny, Negate: true, Values: []TermValue{textValue(body)}}, "", ""
		}
		return Term{}, body, ""
	}
	f, ok := searchFields[strings.ToLower(name)]
	if !ok {
		return Term{}, "", fmt.Sprintf("unknown qualifier %q (known: %s; quote a word that holds a colon)", name, qualifierNames())
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
