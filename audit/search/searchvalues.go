package search

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/auditlog/auditlog/audit"
)

// tokenize splits q on white space outside double quotes. A quote left
// open is an error.
func tokenize(q string) (toks []string, msg string) {
	var b strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			b.WriteRune(r)
		case unicode.IsSpace(r) && !quoted:
			if b.Len() > 0 {
				toks = append(toks, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if quoted {
		return nil, "a quote is not closed"
	}
	if b.Len() > 0 {
		toks = append(toks, b.String())
	}
	return toks, ""
}

// checkWord checks a word, phrase or qualifier value: * only at its end,
// a letter or digit in it, and a prefix of MinPrefixLength of them at
// least, not a phrase.
func checkWord(w string) string {
	stem, prefix := strings.CutSuffix(w, "*")
	switch {
	case strings.Contains(stem, "*"):
		return "* may only end a word"
	case prefix && strings.ContainsFunc(stem, unicode.IsSpace):
		return "a phrase cannot be a prefix"
	case prefix && alnum(stem) < MinPrefixLength:
		return fmt.Sprintf("a prefix needs at least %d letters or digits before *", MinPrefixLength)
	case alnum(stem) == 0:
		// Free text matches words; a term of none ("--", "&&", "") would
		// match nothing, or negated, everything (issue 56).
		return "a term needs a letter or digit: free text matches words, and this has none"
	}
	return ""
}

// checkFreeText checks a free-text word or phrase: checkWord, and by its
// words as both stores index them (AppendFolded), a prefix is one word,
// since a phrase whose last word is a prefix has no exact answer on
// Elasticsearch (its phrase prefix query stops at a number of
// expansions). A qualifier's value (actor:policy-owner*) is no text and
// is not so limited.
func checkFreeText(w string) string {
	if msg := checkWord(w); msg != "" {
		return msg
	}
	stem, prefix := strings.CutSuffix(w, "*")
	words := FoldedWords(strings.Trim(stem, `"`))
	if len(words) == 0 {
		return "a term needs a letter or digit: free text matches words, and this has none"
	}
	if prefix && len(words) > 1 {
		return fmt.Sprintf("a prefix (*) must be one word, and this is %d (%s)", len(words), strings.Join(words, " "))
	}
	return ""
}

func alnum(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// splitValues splits a qualifier's values on commas outside quotes and
// unquotes them.
func splitValues(raw string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for _, r := range raw {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ',' && !quoted:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	return append(out, b.String())
}

// parseValues parses the values of qualifier f and checks each against
// the field's rule.
func parseValues(f audit.SearchField, raw string) (audit.Term, string) {
	t := audit.Term{Field: f}
	if f == audit.SearchCreated {
		return parseCreated(raw)
	}
	for _, v := range splitValues(raw) {
		stem, prefix := strings.CutSuffix(v, "*")
		if strings.TrimSpace(stem) == "" {
			return t, "a value is empty"
		}
		if prefix && f != audit.SearchActor {
			return t, "only actor: and free text take a prefix (*)"
		}
		if msg := checkWord(v); msg != "" {
			return t, msg
		}
		text, msg := checkValue(f, strings.TrimSpace(stem))
		if msg != "" {
			return t, msg
		}
		t.Values = append(t.Values, audit.TermValue{Text: text, Prefix: prefix})
	}
	return t, ""
}

// checkValue returns a value in the form the field stores (ids and
// e-mails lower-cased), or why it cannot match.
func checkValue(f audit.SearchField, v string) (string, string) {
	switch f {
	case audit.SearchAction:
		if !audit.Action(v).Valid() {
			return "", fmt.Sprintf("%q is not one of create, update, delete, access", v)
		}
	case audit.SearchCategory:
		if !audit.Category(v).Valid() {
			return "", fmt.Sprintf("%q is not one of configuration, sensitive_access, security, cross_tenant, integration", v)
		}
	case audit.SearchOutcome:
		if !audit.Outcome(v).Valid() {
			return "", fmt.Sprintf("%q is not success or failure", v)
		}
	case audit.SearchCrossTenant:
		if v != "true" && v != "false" {
			return "", "crossTenant is true or false"
		}
	case audit.SearchType:
		if !audit.ValidToken(v) {
			return "", fmt.Sprintf("%q is not a resource type (lowercase snake_case)", v)
		}
	case audit.SearchActor, audit.SearchActorID, audit.SearchResource:
		return strings.ToLower(v), ""
	case audit.SearchRole:
		if !audit.ValidToken(v) {
			return "", fmt.Sprintf("%q is not a role (lowercase snake_case)", v)
		}
	case audit.SearchIP:
		p, err := ParseIPBlock(v)
		if err != nil {
			return "", fmt.Sprintf("%q is not an IP address or CIDR block", v)
		}
		return p.String(), ""
	}
	return v, ""
}

// parseCreated parses created:[op]instant or created:a..b.
func parseCreated(raw string) (audit.Term, string) {
	t := audit.Term{Field: audit.SearchCreated}
	if a, b, ok := strings.Cut(raw, ".."); ok {
		from, _, m1 := parseInstant(a)
		_, to, m2 := parseInstant(b)
		if m1+m2 != "" {
			return t, m1 + m2
		}
		if !to.After(from) {
			return t, "the range ends before it starts"
		}
		t.From, t.To = &from, &to
		return t, ""
	}
	op := ""
	for _, o := range []string{">=", "<=", ">", "<"} {
		if strings.HasPrefix(raw, o) {
			op, raw = o, raw[len(o):]
			break
		}
	}
	start, end, msg := parseInstant(raw)
	if msg != "" {
		return t, msg
	}
	switch op {
	case "":
		t.From, t.To = &start, &end
	case ">=":
		t.From = &start
	case ">":
		t.From = &end
	case "<":
		t.To = &start
	case "<=":
		t.To = &end
	}
	return t, ""
}

// parseInstant reads a day (2026-11-11, in UTC) or an RFC 3339 instant,
// and returns the span it names: [start, end).
func parseInstant(s string) (start, end time.Time, msg string) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, d.AddDate(0, 0, 1), ""
	}
	if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
		ts = ts.UTC()
		return ts, ts.Add(time.Millisecond), ""
	}
	return time.Time{}, time.Time{}, fmt.Sprintf("%q is not a day (2026-11-11) or an instant (2026-11-11T09:30:00Z)", s)
}

// pasted reports whether a plain word alone is a pasted value rather
// than a word of text: it holds a letter or digit and something other
// than letters (a digit, a dot, an @, a colon, a dash…), and is not a
// prefix or a phrase.
func pasted(w string) bool {
	if strings.HasSuffix(w, "*") || strings.HasPrefix(w, `"`) || alnum(w) == 0 {
		return false
	}
	return strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })
}
