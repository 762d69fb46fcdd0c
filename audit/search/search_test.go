package search_test

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit/search"

	"github.com/auditlog/auditlog/audit"
)

func day(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func TestParseSearch(t *testing.T) {
	v := func(s string) audit.TermValue { return audit.TermValue{Text: s} }
	p := func(s string) audit.TermValue { return audit.TermValue{Text: s, Prefix: true} }
	for _, tc := range []struct {
		q     string
		text  string
		terms []audit.Term
	}{
		{"grace", "grace", nil},
		{`grace "welcome screen" ad*`, `grace "welcome screen" ad*`, nil},
		{"actor:Grace@X.example", "", []audit.Term{{Field: audit.SearchActor, Values: []audit.TermValue{v("grace@x.example")}}}},
		{"actor:gr*", "", []audit.Term{{Field: audit.SearchActor, Values: []audit.TermValue{p("gr")}}}},
		// A qualifier's prefix is of the value, not of words: any separators.
		{"actor:policy-owner*", "", []audit.Term{{Field: audit.SearchActor, Values: []audit.TermValue{p("policy-owner")}}}},
		{"-action:access", "", []audit.Term{{Field: audit.SearchAction, Negate: true, Values: []audit.TermValue{v("access")}}}},
		{"action:create,delete", "", []audit.Term{{Field: audit.SearchAction, Values: []audit.TermValue{v("create"), v("delete")}}}},
		{"action:create OR action:delete", "", []audit.Term{{Field: audit.SearchAction, Values: []audit.TermValue{v("create"), v("delete")}}}},
		{"CrossTenant:true type:ivr", "", []audit.Term{{Field: audit.SearchCrossTenant, Values: []audit.TermValue{v("true")}}, {Field: audit.SearchType, Values: []audit.TermValue{v("ivr")}}}},
		{`resource:"AB-1"`, "", []audit.Term{{Field: audit.SearchResource, Values: []audit.TermValue{v("ab-1")}}}},
		{"-zendesk", "", []audit.Term{{Field: audit.SearchAny, Negate: true, Values: []audit.TermValue{v("zendesk")}}}},
		{"zendesk OR welc*", "", []audit.Term{{Field: audit.SearchAny, Values: []audit.TermValue{v("zendesk"), p("welc")}}}},
		// Pasted values (issue 42): a word with more than letters is
		// matched exactly as well; letters, phrases and prefixes stay text.
		{"198.51.100.23", "", []audit.Term{{Field: audit.SearchAny, Values: []audit.TermValue{v("198.51.100.23")}}}},
		{"grace@acme.example queue", "queue", []audit.Term{{Field: audit.SearchAny, Values: []audit.TermValue{v("grace@acme.example")}}}},
		{"2001:db8::/32", "", []audit.Term{{Field: audit.SearchAny, Values: []audit.TermValue{v("2001:db8::/32")}}}},
		{`"198.51.100.23" q12*`, `"198.51.100.23" q12*`, nil},
		{"created:2026-11-11", "", []audit.Term{{Field: audit.SearchCreated, From: day("2026-11-11T00:00:00Z"), To: day("2026-11-12T00:00:00Z")}}},
		{"created:>=2026-11-11", "", []audit.Term{{Field: audit.SearchCreated, From: day("2026-11-11T00:00:00Z")}}},
		{"created:>2026-11-11", "", []audit.Term{{Field: audit.SearchCreated, From: day("2026-11-12T00:00:00Z")}}},
		{"created:<2026-11-11", "", []audit.Term{{Field: audit.SearchCreated, To: day("2026-11-11T00:00:00Z")}}},
		{"created:<=2026-11-11", "", []audit.Term{{Field: audit.SearchCreated, To: day("2026-11-12T00:00:00Z")}}},
		{"created:2026-11-01..2026-11-03", "", []audit.Term{{Field: audit.SearchCreated, From: day("2026-11-01T00:00:00Z"), To: day("2026-11-04T00:00:00Z")}}},
		{"created:>=2026-11-11T09:30:00+01:00", "", []audit.Term{{Field: audit.SearchCreated, From: day("2026-11-11T08:30:00Z")}}},
		{"a -outcome:failure b", "a b", []audit.Term{{Field: audit.SearchOutcome, Negate: true, Values: []audit.TermValue{v("failure")}}}},
		{`"http://x.example"`, `"http://x.example"`, nil},
		{"ip:192.87.140.139", "", []audit.Term{{Field: audit.SearchIP, Values: []audit.TermValue{v("192.87.140.139/32")}}}},
		{"ip:::ffff:192.87.140.139", "", []audit.Term{{Field: audit.SearchIP, Values: []audit.TermValue{v("192.87.140.139/32")}}}},
		{"ip:192.87.140.139/16,2001:DB8::1/32", "", []audit.Term{{Field: audit.SearchIP, Values: []audit.TermValue{v("192.87.0.0/16"), v("2001:db8::/32")}}}},
		{"-role:superadmin request:req_42", "", []audit.Term{{Field: audit.SearchRole, Negate: true, Values: []audit.TermValue{v("superadmin")}}, {Field: audit.SearchRequest, Values: []audit.TermValue{v("req_42")}}}},
	} {
		text, terms, err := search.Parse(tc.q)
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		if text != tc.text || !reflect.DeepEqual(terms, tc.terms) {
			t.Errorf("%q:\n got %q %+v\nwant %q %+v", tc.q, text, terms, tc.text, tc.terms)
		}
	}
}

// TestSearchErrorsNameEachTerm: every term that does not parse is one
// FieldError q naming it; the others do not hide it.
func TestSearchErrorsNameEachTerm(t *testing.T) {
	for q, want := range map[string][]string{
		"action:explode":                  {`"action:explode": "explode" is not one of`},
		"color:red":                       {`unknown qualifier "color"`},
		"action:create OR type:ivr":       {"OR joins terms of one qualifier"},
		"-action:create OR action:update": {"OR joins terms of one qualifier"},
		"OR grace":                        {"OR needs a term on each side"},
		"grace OR":                        {"OR needs a term on each side"},
		`"open`:                           {"a quote is not closed"},
		"a*":                              {"a prefix needs at least 2"},
		"type:iv*":                        {"only actor: and free text take a prefix"},
		"created:yesterday":               {`"yesterday" is not a day`},
		"created:2026-11-05..2026-11-01":  {"ends before it starts"},
		"crossTenant:maybe":               {"true or false"},
		"outcome:meh category:fun":        {`"meh" is not success`, `"fun" is not one of`},
		"actor:":                          {"a value is empty"},
		`"welcome scr"*`:                  {"a phrase cannot be a prefix"},
		"CS-48*":                          {"a prefix (*) must be one word, and this is 2 (cs 48)"},
		"é*":                              {"a prefix needs at least 2 letters or digits"},
		"ab*c":                            {"* may only end a word"},
		// A term of no word would match nothing, or negated everything
		// (issue 56): an error, the same on both stores.
		"--":                      {`"--": a term needs a letter or digit`},
		"&&":                      {`"&&": a term needs a letter or digit`},
		`""`:                      {"a term needs a letter or digit"},
		"grace -&":                {`"-&": a term needs a letter or digit`},
		strings.Repeat("ab* ", 9): {"at most 8 prefixes"},
		strings.Repeat("a ", 17):  {"at most 16 terms"},
		"action:" + strings.Repeat("create,", 33) + "create": {"at most 32 values"},
		strings.Repeat("x", 513):                             {"at most 512 characters"},
	} {
		_, _, err := search.Parse(q)
		fields := audit.ErrorFields(err)
		if audit.ErrorCode(err) != audit.EINVALID || len(fields) != len(want) {
			t.Errorf("%.40q: %v, want %d errors", q, err, len(want))
			continue
		}
		for i, w := range want {
			if fields[i].Field != "q" || !strings.Contains(fields[i].Message, w) {
				t.Errorf("%.40q: error %d is %q, want %q", q, i, fields[i].Message, w)
			}
		}
	}
}

// FuzzParseSearch: any input parses or is an EINVALID error naming q;
// what parses stays within the bounds; parsing never panics.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"actor:gr* -action:access", `"a b" OR c`, "created:2026-11-01..2026-11-03", "type:ivr,queue OR type:did", "-", `""`, "OR", "a:b:c", "actor:\"x,y\",z*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		text, terms, err := search.Parse(q)
		if err != nil {
			if fs := audit.ErrorFields(err); audit.ErrorCode(err) != audit.EINVALID || len(fs) == 0 || fs[0].Field != "q" {
				t.Fatalf("%q: %v", q, err)
			}
			return
		}
		if len(q) > search.MaxQBytes || len(terms)+textTerms(text) > search.MaxQTerms*2 {
			t.Fatalf("%q parsed past the bounds", q)
		}
		for _, tm := range terms {
			if tm.Field != audit.SearchCreated && len(tm.Values) == 0 {
				t.Fatalf("%q: a term without values: %+v", q, tm)
			}
			for _, v := range tm.Values {
				if !utf8.ValidString(v.Text) && utf8.ValidString(q) {
					t.Fatalf("%q: value %q is not UTF-8", q, v.Text)
				}
			}
		}
	})
}

// TestSearchValues: the reason first, then the changed values at any
// depth in field order; a marker (a masked secret) never; bounded.
func TestSearchValues(t *testing.T) {
	marker := audit.MaskPrefix + strings.Repeat("A", 24)
	e := audit.Event{Reason: "Ticket CS-4821", Diff: map[string]audit.Change{
		"b.token": {From: []byte(`"` + marker + `"`), To: []byte(`"` + marker + `"`)},
		"a":       {From: []byte(`{"x":["zendesk",3],"y":true}`), To: []byte(`null`)},
		"c":       {From: []byte(`"Welcome"`), To: []byte(`"Hello"`)},
	}}
	got := e.SearchValues()
	want := []string{"Ticket CS-4821", "zendesk", "3", "true", "Welcome", "Hello"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SearchValues = %q, want %q", got, want)
	}
	big := audit.Event{Diff: map[string]audit.Change{"x": {To: []byte(`"` + strings.Repeat("w", audit.MaxSearchValueBytes) + `"`)}, "a": {To: []byte(`"kept"`)}}}
	if got := big.SearchValues(); !reflect.DeepEqual(got, []string{"kept"}) {
		t.Fatalf("over the bound: %q", got)
	}
}

// TestPaste: what a pasted value finds exactly besides the text.
func TestPaste(t *testing.T) {
	for _, tc := range []struct {
		text   string
		prefix bool
		ok     bool
		ip     string
		email  string
		id     string
	}{
		{text: "198.51.100.23", ok: true, ip: "198.51.100.23/32", email: "198.51.100.23", id: "198.51.100.23"},
		{text: "::ffff:198.51.100.23", ok: true, ip: "198.51.100.23/32", email: "::ffff:198.51.100.23", id: "::ffff:198.51.100.23"},
		{text: "2001:DB8::/32", ok: true, ip: "2001:db8::/32", email: "2001:db8::/32", id: "2001:DB8::/32"},
		{text: "Grace@Acme.example", ok: true, email: "grace@acme.example", id: "Grace@Acme.example"},
		{text: "evt_audit_0193A0B2-7C3D-7E4F-8A5B-6C7D8E9F0A1B", ok: true, email: "evt_audit_0193a0b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b", id: "evt_audit_0193a0b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b"},
		{text: "q-12", prefix: true},
		{text: "welcome screen"},
	} {
		p, ok := search.PasteOf(audit.TermValue{Text: tc.text, Prefix: tc.prefix})
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.text, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		ip := ""
		if p.IPOK {
			ip = p.IP.String()
		}
		if ip != tc.ip || p.Email != tc.email || p.ID != tc.id || p.Exact != tc.text {
			t.Errorf("%q: %+v (ip %q), want ip %q email %q id %q", tc.text, p, ip, tc.ip, tc.email, tc.id)
		}
	}
}

// TestPastedIdsInAnyCase: an event id and a resource id pasted in capitals
// are matched as the stores keep them (lower case); a request id, a
// producer's own string, as pasted.
func TestPastedIdsInAnyCase(t *testing.T) {
	p, ok := search.PasteOf(audit.TermValue{Text: "EVT_AUDIT_7C9E6679-7425-40DE-944B-E07FC1F90AE7"})
	if !ok || p.ID != "evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7" {
		t.Fatalf("event id: %+v", p)
	}
	p, _ = search.PasteOf(audit.TermValue{Text: "7C9E6679-7425-40DE-944B-E07FC1F90AE7"})
	if p.Resource != "7c9e6679-7425-40de-944b-e07fc1f90ae7" || p.Exact != "7C9E6679-7425-40DE-944B-E07FC1F90AE7" {
		t.Fatalf("resource id: %+v", p)
	}
	if p, _ := search.PasteOf(audit.TermValue{Text: "Req-AB12"}); p.Resource != "Req-AB12" || p.Exact != "Req-AB12" {
		t.Fatalf("a request id: %+v", p)
	}
}

// textTerms counts the terms of Parse's free text as the language counts
// them: runs of text between spaces outside double quotes, so a quoted
// phrase is one term whatever its words (a phrase is bounded by MaxQBytes
// alone: a pasted sentence may be searched as it stands).
func textTerms(text string) int {
	n, quoted, in := 0, false, false
	for _, c := range text {
		switch {
		case c == ' ' && !quoted:
			in = false
			continue
		case c == '"':
			quoted = !quoted
		}
		if !in {
			n, in = n+1, true
		}
	}
	return n
}
