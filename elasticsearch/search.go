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
			should = append(should, map[string]any{"match_phrase": map[string]any{"reasonText": v.Text}})
		}
	case audit.SearchText, audit.SearchAny:
		for _, v := range t.Values {
			should = append(should, map[string]any{"simple_query_string": map[string]any{
				"query": textQuery(v), "fields": textFields, "default_operator": "and", "flags": "PREFIX|PHRASE|WHITESPACE",
			}})
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
				should = append(should, map[string]any{"prefix": map[string]any{field: v.Text}})
			default:
				should = append(should, map[string]any{"term": map[string]any{field: v.Text}})
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
		map[string]any{"term": map[string]any{"id": p.ID}}, map[string]any{"term": map[string]any{"requestId": p.Exact}},
		map[string]any{"term": map[string]any{"resource.id": p.Resource}}, map[string]any{"term": map[string]any{"actor.email": p.Email}},
	}
	if p.IPOK {
		out = append(out, map[string]any{"term": map[string]any{"actor.ip": p.IP.String()}})
	}
	return out
}

// textFields are what free text searches: search, which holds the
// event's texts and, split into words where the standard analyzer would
// keep a host name whole, words (words.go).
var textFields = []string{"search"}

// textQuery is one free-text value for simple_query_string: a phrase in
// quotes (its tokens in order), a prefix with its *.
func textQuery(v audit.TermValue) string {
	s := `"` + strings.ReplaceAll(v.Text, `"`, " ") + `"`
	if v.Prefix {
		s = strings.ReplaceAll(v.Text, `"`, " ") + "*"
	}
	return s
}
