package api

import (
	"fmt"
	"github.com/auditlog/auditlog/internal/didyoumean"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
)

// The query parameters of the read endpoints, declared once: the parser
// refuses any other, and TestOpenAPIParametersAreTheParsersTables checks
// that the OpenAPI document lists exactly these for each operation.
//
// filterParams are the filters of the list, the stats and the exports.
// cross_tenant, the name the spec uses in prose and in the panel, is
// accepted for crossTenant.
var filterParams = map[string]bool{
	"from": true, "to": true, "actorId": true, "actorEmail": true, "action": true, "resourceType": true,
	"resourceId": true, "crossTenant": true, "cross_tenant": true, "category": true, "outcome": true, "q": true, "system": true,
}

// sortParams order the list and the exports (not the stats).
var sortParams = map[string]bool{"sort": true, "order": true}

var pageParams = map[string]bool{"page": true, "pageSize": true, "cursor": true}

var statsParams = map[string]bool{"groupBy": true, "interval": true}

// queryParser collects every problem of a request's parameters.
type queryParser struct {
	v    url.Values
	errs []audit.FieldError
}

func (p *queryParser) fail(field, format string, args ...any) {
	p.errs = append(p.errs, audit.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *queryParser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Field < p.errs[j].Field })
	return &audit.Error{Code: audit.EINVALID, Message: "invalid query parameters", Fields: p.errs}
}

// unknown flags parameters no endpoint takes: a typo must not silently
// widen a query.
func (p *queryParser) unknown(allowed ...map[string]bool) {
	var names []string
	for _, a := range allowed {
		for k := range a {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for k := range p.v {
		ok := false
		for _, a := range allowed {
			ok = ok || a[k]
		}
		if !ok {
			p.fail(k, "is not a known parameter%s", didyoumean.Suggest(k, names))
		}
	}
}

// single returns the one value of a parameter, failing when it is repeated.
func (p *queryParser) single(name string) string {
	vs := p.v[name]
	if len(vs) > 1 {
		p.fail(name, "must be given once")
	}
	if len(vs) == 0 {
		return ""
	}
	return strings.TrimSpace(vs[0])
}

// list returns the values of a repeatable parameter; a value may also be
// comma-separated.
func (p *queryParser) list(name string) []string {
	var out []string
	for _, v := range p.v[name] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func (p *queryParser) time(name string) *time.Time {
	s := p.single(name)
	if s == "" {
		return nil
	}
	ts, err := audit.ParseTimestamp(s)
	if err != nil {
		p.fail(name, "must be an ISO 8601 timestamp like 2026-11-21T09:30:12.345Z")
		return nil
	}
	t := ts.Time
	return &t
}

// boolean reads name as true or false (absent: false).
func (p *queryParser) boolean(name string) bool {
	switch v := p.single(name); v {
	case "", "false":
		return false
	case "true":
		return true
	default:
		p.fail(name, "must be true or false")
		return false
	}
}

func (p *queryParser) int(name string, def, lo, hi int) int {
	s := p.single(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		p.fail(name, "must be an integer from %d to %d", lo, hi)
		return def
	}
	return n
}

// filter reads the filters, normalised; tenant is the caller's.
func (p *queryParser) filter(tenant string) audit.Filter {
	f := audit.Filter{TenantID: tenant}
	f.From, f.To = p.time("from"), p.time("to")
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		p.fail("to", "must be after from")
	}
	if f.ActorID = p.single("actorId"); f.ActorID != "" && !audit.ValidUUID(f.ActorID) {
		p.fail("actorId", "must be a UUID")
	}
	if f.ActorEmail = p.single("actorEmail"); len(f.ActorEmail) > audit.MaxEmailBytes {
		p.fail("actorEmail", "must be at most %d bytes", audit.MaxEmailBytes)
	}
	for _, a := range p.list("action") {
		if !audit.Action(a).Valid() {
			p.fail("action", "%q is not one of create, update, delete, access", a)
			continue
		}
		f.Actions = append(f.Actions, audit.Action(a))
	}
	for _, rt := range p.list("resourceType") {
		if !audit.ValidToken(rt) {
			p.fail("resourceType", "%q is not a resource type (lowercase snake_case, at most %d characters)", rt, audit.MaxTokenLen)
			continue
		}
		f.ResourceTypes = append(f.ResourceTypes, rt)
	}
	if f.ResourceID = p.single("resourceId"); f.ResourceID != "" && !audit.ValidUUID(f.ResourceID) {
		p.fail("resourceId", "must be a UUID")
	}
	ct := p.single("crossTenant")
	if alias := p.single("cross_tenant"); alias != "" {
		if ct != "" && ct != alias {
			p.fail("crossTenant", "crossTenant and cross_tenant disagree")
		}
		ct = alias
	}
	if ct != "" {
		b, err := strconv.ParseBool(ct)
		if err != nil {
			p.fail("crossTenant", "must be true or false")
		} else {
			f.CrossTenant = &b
		}
	}
	if c := p.single("category"); c != "" {
		if f.Category = audit.Category(c); !f.Category.Valid() {
			p.fail("category", "must be one of configuration, sensitive_access, security, cross_tenant, integration")
		}
	}
	if o := p.single("outcome"); o != "" {
		if f.Outcome = audit.Outcome(o); !f.Outcome.Valid() {
			p.fail("outcome", "must be success or failure")
		}
	}
	if p.single("system") != "" {
		f.HideSystem = !p.boolean("system")
	}
	if q := p.single("q"); q != "" {
		var err error
		if f.Q, f.Terms, err = search.Parse(q); err != nil {
			p.errs = append(p.errs, audit.ErrorFields(err)...)
		}
	}

	f.Normalize()
	return f
}

// sort reads sort and order.
func (p *queryParser) sort() audit.Sort {
	s := audit.DefaultSort
	if v := p.single("sort"); v != "" {
		if !audit.SortField(v).Valid() {
			p.fail("sort", "must be one of timestamp, actor.email, action, resource.type")
		} else {
			s.Field = audit.SortField(v)
			// A field other than the time sorts ascending unless told.
			s.Desc = s.Field == audit.SortTimestamp
		}
	}
	switch o := p.single("order"); o {
	case "":
	case "asc":
		s.Desc = false
	case "desc":
		s.Desc = true
	default:
		p.fail("order", "must be asc or desc")
	}
	return s
}

// parseListQuery turns the parameters of GET /api/audit-logs into a
// domain query, verifying the cursor against the filter and sort.
func parseListQuery(v url.Values, tenant string, cursors *cursor.Codec) (audit.Query, error) {
	p := &queryParser{v: v}
	p.unknown(filterParams, sortParams, pageParams)
	f, s := p.filter(tenant), p.sort()
	q := audit.Query{Filter: f, Sort: s}
	q.PageSize = p.int("pageSize", audit.DefaultPageSize, 1, audit.MaxPageSize)
	q.Page = p.int("page", 1, 1, 1<<30)
	if c := p.single("cursor"); c != "" {
		if v.Has("page") && q.Page != 1 {
			p.fail("page", "cannot be combined with cursor")
		}
		if cur, err := cursors.Decode(c, f, s); err != nil {
			p.errs = append(p.errs, audit.ErrorFields(err)...)
		} else {
			q.After, q.Counted = &cur.After, cur.Total
		}
	} else if len(p.errs) == 0 {
		if _, err := q.Window(); err != nil {
			p.errs = append(p.errs, audit.ErrorFields(err)...)
		}
	}
	return q, p.err()
}

// parseStatsQuery reads the parameters of GET /api/audit-logs/stats.
func parseStatsQuery(v url.Values, tenant string) (stats.Query, error) {
	p := &queryParser{v: v}
	p.unknown(filterParams, statsParams)
	f := p.filter(tenant)
	q := stats.Query{Filter: f, MaxGroups: 50}
	if g := p.single("groupBy"); g != "" {
		if q.GroupBy = stats.GroupField(g); !q.GroupBy.Valid() {
			p.fail("groupBy", "must be one of action, resource.type, actor.email, category, outcome")
		}
	}
	if iv := p.single("interval"); iv != "" {
		d, err := parseInterval(iv)
		if err != nil {
			p.fail("interval", "must be a duration like 1h, 15m or 1d, of at least 1m")
		} else {
			q.Interval = d
			if err := q.CheckBuckets(); err != nil {
				p.errs = append(p.errs, audit.ErrorFields(err)...)
			}
		}
	}
	if !v.Has("groupBy") && !v.Has("interval") {
		p.fail("groupBy", "give groupBy, interval, or both")
	}
	return q, p.err()
}

func parseInterval(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		days, err = strconv.Atoi(n)
		d = time.Duration(days) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute || d%time.Second != 0 {
		return 0, fmt.Errorf("bad interval %q", s)
	}
	return d, nil
}
