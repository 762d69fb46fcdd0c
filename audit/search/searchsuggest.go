package search

import (
	"slices"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// MaxAlternatives bounds the searches Alternatives offers, and so the
// counts a search that found nothing costs the store.
const MaxAlternatives = 4

// Alternatives returns searches a user who typed q and found nothing
// likely meant (issue 42), each q with one term read another way, in the
// order tried:
//
//   - resource:X is a resource's id; type:X its kind (resource:queue);
//     type:X the other way round;
//   - reason:V is the declared reason only; V alone is any text;
//   - request:X and actor.id:X alone are any text or value;
//   - actor:X without * or @ is an exact e-mail; actor:X* its prefix;
//   - a word of letters alone is text; actor:W* (a user), type:W (a
//     resource kind) and action:W are the fields a word often names.
//
// Only searches that parse are returned, at most MaxAlternatives. The
// caller counts each and shows those that find something.
func Alternatives(q string) []string {
	toks, msg := tokenize(q)
	if msg != "" || len(toks) > MaxQTerms {
		return nil
	}
	var out []string
	for i, tok := range toks {
		if tok == "OR" || (i > 0 && toks[i-1] == "OR") || (i+1 < len(toks) && toks[i+1] == "OR") {
			continue // an ORed term is read as typed
		}
		for _, alt := range readings(tok) {
			next := append(append(append([]string(nil), toks[:i]...), alt), toks[i+1:]...)
			s := strings.Join(next, " ")
			if _, _, err := Parse(s); err == nil && s != q && !slices.Contains(out, s) {
				out = append(out, s)
			}
			if len(out) == MaxAlternatives {
				return out
			}
		}
	}
	return out
}

// readings are the other ways to read one term of a search.
func readings(tok string) []string {
	if strings.HasPrefix(tok, "-") {
		return nil // a negation excludes: another reading would not find more
	}
	name, raw, qualified := strings.Cut(tok, ":")
	if !qualified || strings.HasPrefix(tok, `"`) || !isQualifierName(name) {
		stem := strings.Trim(tok, `"`)
		if strings.ContainsFunc(stem, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) || len(stem) < MinPrefixLength {
			return nil
		}
		w := strings.ToLower(stem)
		out := []string{"actor:" + w + "*", "type:" + w}
		if audit.Action(w).Valid() {
			out = append(out, "action:"+w)
		}
		return out
	}
	switch audit.SearchField(strings.ToLower(name)) {
	case audit.SearchResource:
		return []string{"type:" + strings.ToLower(raw)}
	case audit.SearchType:
		return []string{"resource:" + raw}
	case audit.SearchReason, audit.SearchRequest, audit.SearchActorID:
		return []string{raw}
	case audit.SearchActor:
		if !strings.ContainsAny(raw, "*@,\"") {
			return []string{"actor:" + raw + "*"}
		}
	}
	return nil
}
