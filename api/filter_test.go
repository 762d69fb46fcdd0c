package api

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit/cursor"

	"github.com/auditlog/auditlog/audit"
)

const testTenant = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

func fields(err error) []string {
	var out []string
	for _, fe := range audit.ErrorFields(err) {
		out = append(out, fe.Field)
	}
	return out
}

// TestParseListQuery: every parameter of GET /api/audit-logs, read into
// the normalised domain filter, with no store behind it.
func TestParseListQuery(t *testing.T) {
	ts := func(s string) *time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return &v }
	yes, no := true, false
	for _, tc := range []struct {
		query string
		want  audit.Query
	}{
		{"", audit.Query{Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00.5Z", audit.Query{Filter: audit.Filter{From: ts("2026-11-01T00:00:00Z"), To: ts("2026-11-02T00:00:00.5Z")}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"actorId=0B6F5D3E-8C1A-4F7E-9A52-3C1D2E4F5A6B&actorEmail=Ana@ACME.example", audit.Query{Filter: audit.Filter{ActorID: "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b", ActorEmail: "ana@acme.example"}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"action=update,delete&action=update&resourceType=queue&resourceType=ivr", audit.Query{Filter: audit.Filter{Actions: []audit.Action{"delete", "update"}, ResourceTypes: []string{"ivr", "queue"}}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"resourceId=D5D5D504-AFC6-4C1B-AF53-0078FCAB2445", audit.Query{Filter: audit.Filter{ResourceID: "d5d5d504-afc6-4c1b-af53-0078fcab2445"}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"crossTenant=true", audit.Query{Filter: audit.Filter{CrossTenant: &yes}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"cross_tenant=false", audit.Query{Filter: audit.Filter{CrossTenant: &no}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"category=security&outcome=failure", audit.Query{Filter: audit.Filter{Category: audit.CategorySecurity, Outcome: audit.OutcomeFailure}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"q=refund*+maxWait", audit.Query{Filter: audit.Filter{Q: "refund* maxWait"}, Sort: audit.DefaultSort, PageSize: 50, Page: 1}},
		{"sort=actor.email", audit.Query{Sort: audit.Sort{Field: audit.SortActorEmail}, PageSize: 50, Page: 1}},
		{"sort=resource.type&order=desc", audit.Query{Sort: audit.Sort{Field: audit.SortResourceType, Desc: true}, PageSize: 50, Page: 1}},
		{"order=asc", audit.Query{Sort: audit.Sort{Field: audit.SortTimestamp}, PageSize: 50, Page: 1}},
		{"page=3&pageSize=1000", audit.Query{Sort: audit.DefaultSort, PageSize: 1000, Page: 3}},
	} {
		v, _ := url.ParseQuery(tc.query)
		got, err := parseListQuery(v, testTenant, cursor.NewCodec([]byte("k")))
		if err != nil {
			t.Errorf("%q: %v", tc.query, err)
			continue
		}
		tc.want.Filter.TenantID = testTenant
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.query, got, tc.want)
		}
	}
}

// TestParseListQueryErrors: each bad parameter is named, and every
// problem of one request is reported at once.
func TestParseListQueryErrors(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"from=yesterday", []string{"from"}},
		{"to=2026-13-01T00:00:00Z", []string{"to"}},
		{"from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z", []string{"to"}},
		{"from=2026-11-01T00:00:00Z&to=2026-11-01T00:00:00Z", []string{"to"}},
		{"actorId=bob", []string{"actorId"}},
		{"actorEmail=" + strings.Repeat("a", 255), []string{"actorEmail"}},
		{"actorEmail=a@x&actorEmail=b@x", []string{"actorEmail"}},
		{"action=publish", []string{"action"}},
		{"resourceType=Queue", []string{"resourceType"}},
		{"resourceId=42", []string{"resourceId"}},
		{"crossTenant=maybe", []string{"crossTenant"}},
		{"crossTenant=true&cross_tenant=false", []string{"crossTenant"}},
		{"category=billing", []string{"category"}},
		{"outcome=partial", []string{"outcome"}},
		{"q=" + strings.Repeat("x", 513), []string{"q"}},
		{"q=a*", []string{"q"}},
		{"sort=ip", []string{"sort"}},
		{"order=up", []string{"order"}},
		{"pageSize=0", []string{"pageSize"}},
		{"pageSize=1001", []string{"pageSize"}},
		{"page=0", []string{"page"}},
		{"page=11&pageSize=1000", []string{"page"}},
		{"cursor=abc", []string{"cursor"}},
		{"tenantId=" + testTenant, []string{"tenantId"}},
		{"action=publish&pageSize=5000&sort=ip", []string{"action", "pageSize", "sort"}},
	} {
		v, _ := url.ParseQuery(tc.query)
		_, err := parseListQuery(v, testTenant, cursor.NewCodec([]byte("k")))
		if audit.ErrorCode(err) != audit.EINVALID || !slices.Equal(fields(err), tc.want) {
			t.Errorf("%q: %v (fields %v), want EINVALID naming %v", tc.query, err, fields(err), tc.want)
		}
	}
}

// TestCursorOfOneSpellingServesTheOther: a cursor made for actorEmail=A@x
// continues the walk of actorEmail=a@x (the same rows), and a cursor is
// refused for another filter or sort.
func TestCursorOfOneSpellingServesTheOther(t *testing.T) {
	codec := cursor.NewCodec([]byte("k"))
	upper, _ := url.ParseQuery("actorEmail=Ana@ACME.example&action=update,delete")
	q, err := parseListQuery(upper, testTenant, codec)
	if err != nil {
		t.Fatal(err)
	}
	cur := codec.Encode(cursor.Cursor{After: audit.Position{Millis: 1, ID: "evt_audit_x"}}, q.Filter, q.Sort)
	for _, tc := range []struct {
		query string
		ok    bool
	}{
		{"actorEmail=ana@acme.example&action=delete&action=update", true},
		{"actorEmail=ANA@acme.EXAMPLE&action=update,delete,update", true},
		{"actorEmail=bob@acme.example&action=update,delete", false},
		{"actorEmail=ana@acme.example&action=update,delete&order=asc", false},
	} {
		v, _ := url.ParseQuery(tc.query + "&cursor=" + url.QueryEscape(cur))
		got, err := parseListQuery(v, testTenant, codec)
		if tc.ok && (err != nil || got.After == nil || got.After.ID != "evt_audit_x") {
			t.Errorf("%q: %v, want the cursor accepted", tc.query, err)
		}
		if !tc.ok && !slices.Equal(fields(err), []string{"cursor"}) {
			t.Errorf("%q: %v, want the cursor refused", tc.query, err)
		}
	}
}

// TestParseStatsQuery: groupBy and interval, their errors, and the
// filters shared with the list.
func TestParseStatsQuery(t *testing.T) {
	v, _ := url.ParseQuery("groupBy=actor.email&interval=1d&from=2026-11-01T00:00:00Z&to=2026-11-22T00:00:00Z&actorEmail=A@x")
	q, err := parseStatsQuery(v, testTenant)
	if err != nil || q.GroupBy != stats.GroupActorEmail || q.Interval != 24*time.Hour || q.Filter.ActorEmail != "a@x" || q.MaxGroups != 50 {
		t.Fatalf("%+v %v", q, err)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"groupBy"}},
		{"groupBy=ip", []string{"groupBy"}},
		{"interval=30s", []string{"interval"}},
		{"interval=soon", []string{"interval"}},
		{"interval=1m&from=2019-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", []string{"interval"}},
		{"groupBy=action&page=2", []string{"page"}},
		{"groupBy=action&sort=ip", []string{"sort"}},
	} {
		v, _ := url.ParseQuery(tc.query)
		_, err := parseStatsQuery(v, testTenant)
		if !slices.Equal(fields(err), tc.want) {
			t.Errorf("%q: %v (fields %v), want %v", tc.query, err, fields(err), tc.want)
		}
	}
}
