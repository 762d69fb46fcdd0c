package elasticsearch

import (
	"strings"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
)

// termFields are the document fields of the search language's
// qualifiers.
var termFields = map[audit.SearchField]string{
	audit.SearchActor: "actor.email", audit.SearchActorID: "actor.id", audit.SearchRole: "actor.role",
	audit.SearchIP: "actor.ip", audit.SearchRequest: "requestId", audit.SearchAction: "action",
	audit.SearchType: "resource.type", audit.SearchResource: "resource.id", audit.SearchCategory: "category",
	audit.SearchOutcome: "outcome", audit.SearchCrossTenant: "crossTenant",
}

// termClause is the query of one term of the search language: its values
// in a should (one must match), the whole in a must_not when negated.
func termClause(t audit.Term) any {
	var should []any
	switch t.Field {
	case audit.SearchCreated:
		r := map[string]any{"format": "strict_date_optional_time"}
		if t.From != nil {
			r["gte"] = audit.NewTimestamp(*t.From).String()
		}
		if t.To != nil {
			r["lt"] = audit.NewTimestamp(*t.To).String()
		}
		should = append(should, map[string]any{"range": map[string]any{"@timestamp": r}})
	case audit.SearchReason:
		for _, v := range t.Values {
			should = append(should, textClause("reasonWords", "reasonText", v))
		}
	case audit.SearchText, audit.SearchAny:
		for _, v := range t.Values {
			should = append(should, textClause("text", "search", v))
			if t.Field == audit.SearchAny {
				should = append(should, pasteClauses(v)...)
			}
		}
	default:
		field := termFields[t.Field]
		for _, v := range t.Values {
			switch {
			case t.Field == audit.SearchCrossTenant:
				should = append(should, map[string]any{"term": map[string]any{field: v.Text == "true"}})
			case v.Prefix:
				should = append(should, map[string]any{"prefix": map[string]any{field: anyCase(t.Field, v.Text)}})
			default:
				should = append(should, map[string]any{"term": map[string]any{field: anyCase(t.Field, v.Text)}})
			}
		}
	}
	q := map[string]any{"bool": map[string]any{"should": should, "minimum_should_match": 1}}
	if t.Negate {
		return map[string]any{"bool": map[string]any{"must_not": []any{q}}}
	}
	return q
}

// pasteClauses are the exact matches of a pasted value (search.PasteOf).
func pasteClauses(v audit.TermValue) []any {
	p, ok := search.PasteOf(v)
	if !ok {
		return nil
	}
	out := []any{
		map[string]any{"term": map[string]any{"id": p.ID}}, map[string]any{"term": map[string]any{"requestId": anyCase(audit.SearchRequest, p.Exact)}},
		map[string]any{"term": map[string]any{"resource.id": p.Resource}}, map[string]any{"term": map[string]any{"actor.email": p.Email}},
	}
	if p.IPOK {
		out = append(out, map[string]any{"term": map[string]any{"actor.ip": p.IP.String()}})
	}
	return out
}

// anyCase is a term or prefix query's value: for a request id, in any
// case of its ASCII letters (as the embedded store's NOCASE collation).
func anyCase(f audit.SearchField, v string) any {
	if f != audit.SearchRequest {
		return v
	}
	return map[string]any{"value": v, "case_insensitive": true}
}

// textClause is the query of one free-text value on field, whose values
// are the words of the word model (words.go): one word a term, several a
// phrase (positions next to each other, in one value of the field), a
// prefix the prefix of its one word (search.Parse allows no other). A
// document written before mapping version 6 has no text and is matched as
// it was, on old (search or reasonText, Elasticsearch's standard
// analysis), until the lifecycle pass writes it again.
func textClause(field, old string, v audit.TermValue) any {
	words := search.Fold(v.Text)
	var q map[string]any
	switch {
	case v.Prefix:
		q = map[string]any{"prefix": map[string]any{field: words}}
	case strings.Contains(words, " "):
		q = map[string]any{"match_phrase": map[string]any{field: words}}
	default:
		q = map[string]any{"term": map[string]any{field: words}}
	}
	oldQ := map[string]any{"simple_query_string": map[string]any{
		"query": textQuery(v), "fields": []string{old}, "default_operator": "and", "flags": "PREFIX|PHRASE|WHITESPACE",
	}}
	if old == "reasonText" {
		oldQ = map[string]any{"match_phrase": map[string]any{old: v.Text}}
	}
	unanalyzed := map[string]any{"bool": map[string]any{"must": []any{oldQ},
		"must_not": []any{map[string]any{"exists": map[string]any{"field": "text"}}}}}
	return map[string]any{"bool": map[string]any{"should": []any{q, unanalyzed}, "minimum_should_match": 1}}
}

// textQuery is one free-text value for simple_query_string on the old
// analysis: a phrase in quotes (its tokens in order), a prefix with its *.
func textQuery(v audit.TermValue) string {
	s := `"` + strings.ReplaceAll(v.Text, `"`, " ") + `"`
	if v.Prefix {
		s = strings.ReplaceAll(v.Text, `"`, " ") + "*"
	}
	return s
}
