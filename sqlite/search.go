package sqlite

import (
	"net/netip"
	"strings"
	"unicode"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
)

// termColumns are the columns of the search language's qualifiers.
var termColumns = map[audit.SearchField]string{
	audit.SearchActor: "actor_email_lc", audit.SearchActorID: "actor_id", audit.SearchRole: "actor_role",
	audit.SearchIP: "actor_ip_key", audit.SearchRequest: "request_id", audit.SearchAction: "action",
	audit.SearchType: "resource_type", audit.SearchResource: "resource_id", audit.SearchCategory: "category",
	audit.SearchOutcome: "outcome", audit.SearchCrossTenant: "cross_tenant",
}

// termCond is the condition of one term of the search language: its
// values ORed, the whole negated with NOT.
func termCond(tenant string, t audit.Term) (string, []any) {
	var ors []string
	var args []any
	switch t.Field {
	case audit.SearchCreated:
		var ands []string
		if t.From != nil {
			ands, args = append(ands, "ts >= ?"), append(args, t.From.UnixMilli())
		}
		if t.To != nil {
			ands, args = append(ands, "ts < ?"), append(args, t.To.UnixMilli())
		}
		ors = append(ors, strings.Join(ands, " AND "))
	case audit.SearchReason:
		ors, args = ftsCond(t.Values, "reason : ", ors, args)
	case audit.SearchText:
		ors, args = ftsCond(t.Values, "", ors, args)
	case audit.SearchAny:
		ors, args = anyCond(tenant, t.Values, ors, args)
	default:
		col := termColumns[t.Field]
		for _, v := range t.Values {
			switch {
			case t.Field == audit.SearchIP:
				p, err := netip.ParsePrefix(v.Text) // search.Parse wrote it
				if err != nil {
					ors = append(ors, "0")
					continue
				}
				lo, hi := ipRange(p)
				ors, args = append(ors, "("+col+" >= ? AND "+col+" <= ?)"), append(args, lo, hi)
			case t.Field == audit.SearchCrossTenant:
				ors, args = append(ors, col+" = ?"), append(args, boolInt(v.Text == "true"))
			case v.Prefix: // a range, so that the column's index serves it
				ors, args = append(ors, "("+col+" >= ? AND "+col+" < ?)"), append(args, v.Text, v.Text+"\U0010FFFF")
			default:
				ors, args = append(ors, col+" = ?"), append(args, v.Text)
			}
		}
	}
	cond := "(" + strings.Join(ors, " OR ") + ")"
	if t.Negate {
		cond = "NOT " + cond
	}
	return cond, args
}

// anyCond appends the condition of pasted values (audit.SearchAny): the
// rows free text matches, or whose id, request id, resource id or e-mail
// is a value, or whose address is in it. One IN over a UNION ALL, each
// part a search of its own index under the tenant (0003, 0008, 0014): as
// an OR of conditions, the planner walked the tenant's every event (1.5 s
// for a pasted address at 490,000 events of a tenant).
func anyCond(tenant string, values []audit.TermValue, ors []string, args []any) ([]string, []any) {
	var parts []string
	if m := ftsMatch(values, ""); m != "" {
		parts, args = append(parts, "SELECT rowid FROM events_fts WHERE events_fts MATCH ?"), append(args, m)
	}
	for _, v := range values {
		p, ok := search.PasteOf(v)
		if !ok {
			continue
		}
		for _, c := range []struct {
			col string
			v   string
		}{{"id", p.ID}, {"request_id", p.Exact}, {"resource_id", p.Resource}, {"actor_email_lc", p.Email}} {
			parts, args = append(parts, "SELECT seq FROM events WHERE tenant_id = ? AND "+c.col+" = ?"), append(args, tenant, c.v)
		}
		if p.IPOK {
			lo, hi := ipRange(p.IP)
			parts, args = append(parts, "SELECT seq FROM events WHERE tenant_id = ? AND actor_ip_key >= ? AND actor_ip_key <= ?"), append(args, tenant, lo, hi)
		}
	}
	if len(parts) == 0 {
		return append(ors, "0"), args
	}
	return append(ors, "seq IN ("+strings.Join(parts, " UNION ALL ")+")"), args
}

// ftsCond appends the condition of free-text values, ORed, each under
// column ("reason : ", or "" for every column): the rows the index
// matches, or none when no value has a letter or digit.
func ftsCond(values []audit.TermValue, column string, ors []string, args []any) ([]string, []any) {
	m := ftsMatch(values, column)
	if m == "" {
		return append(ors, "0"), args
	}
	return append(ors, "seq IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)"), append(args, m)
}

// ftsMatch is the FTS5 query of free-text values, ORed, each under
// column: "" when no value has a letter or digit.
func ftsMatch(values []audit.TermValue, column string) string {
	var m []string
	for _, v := range values {
		if p := ftsValue(v); p != "" {
			m = append(m, column+p)
		}
	}
	return strings.Join(m, " OR ")
}

// ftsValue is one free-text value as an FTS5 query: a phrase (its tokens
// in order), a prefix when it ends in *; "" when it has no letter or digit.
func ftsValue(v audit.TermValue) string {
	if strings.IndexFunc(v.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	p := `"` + strings.ReplaceAll(v.Text, `"`, `""`) + `"`
	if v.Prefix {
		p += " *"
	}
	return p
}
