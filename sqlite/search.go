package sqlite

import (
	"net/netip"
	"strings"

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

// collation is how a column compares a term's value: request ids in any
// case of their ASCII letters (events_by_request is in that collation,
// 0017), as Elasticsearch's case_insensitive term query.
// keyColumns are the columns that keep their values as keys (uuidKey).
var keyColumns = map[string]bool{"actor_id": true, "resource_id": true}

var collation = map[audit.SearchField]string{audit.SearchRequest: " COLLATE NOCASE"}

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
		ors, args = ftsCond(tenant, t.Values, "reason : ", ors, args)
	case audit.SearchText:
		ors, args = ftsCond(tenant, t.Values, "", ors, args)
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
				c := col + collation[t.Field]
				ors, args = append(ors, "("+c+" >= ? AND "+c+" < ?)"), append(args, v.Text, v.Text+"\U0010FFFF")
				if lo, hi, ok := uuidPrefixRange(v.Text); ok && keyColumns[col] {
					// The UUIDs the column keeps as bytes (idkeys.go).
					ors, args = append(ors, "("+col+" >= ? AND "+col+" <= ?)"), append(args, lo, hi)
				}
			case keyColumns[col]:
				ors, args = append(ors, col+" = ?"), append(args, uuidKey(v.Text))
			default:
				ors, args = append(ors, col+" = ?"+collation[t.Field]), append(args, v.Text)
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
		parts, args = append(parts, "SELECT rowid FROM events_fts WHERE events_fts MATCH "+ftsArg), append(args, m, tenant)
	}
	for _, v := range values {
		p, ok := search.PasteOf(v)
		if !ok {
			continue
		}
		for _, c := range []struct {
			col string
			v   any
		}{{"id", idKey(p.ID)}, {"request_id", p.Exact}, {"resource_id", uuidKey(p.Resource)}, {"actor_email_lc", p.Email}} {
			cond := c.col + " = ?"
			if c.col == "request_id" {
				cond += collation[audit.SearchRequest]
			}
			parts, args = append(parts, "SELECT seq FROM events WHERE "+tenantIs+" AND "+cond), append(args, tenant, c.v)
		}
		if p.IPOK {
			lo, hi := ipRange(p.IP)
			parts, args = append(parts, "SELECT seq FROM events WHERE "+tenantIs+" AND actor_ip_key >= ? AND actor_ip_key <= ?"), append(args, tenant, lo, hi)
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
func ftsCond(tenant string, values []audit.TermValue, column string, ors []string, args []any) ([]string, []any) {
	m := ftsMatch(values, column)
	if m == "" {
		return append(ors, "0"), args
	}
	return append(ors, ftsIn), append(args, m, tenant)
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

// ftsValue is one free-text value as an FTS5 query: its words as the
// index holds them (search.AppendFolded, each after markSlot, where
// ftsArg puts the tenant's mark), a phrase (consecutive within one value: the index
// has a value break between values), a prefix when it ends in *; "" when
// it has no word.
func ftsValue(v audit.TermValue) string {
	words := search.Fold(v.Text)
	if words == "" {
		return ""
	}
	p := `"` + string(appendTenantWords(nil, markSlot, words)) + `"` // words hold no quote
	if v.Prefix {
		p += " *"
	}
	return p
}
