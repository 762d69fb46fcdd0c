package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/gen"
)

// The word model (docs/search.md, issue 56), one class of text per case:
// accents, where words split (dotted versions, sub-domains), underscores
// and punctuation, phrases (order, and never over two values), other
// scripts, prefixes, request ids in any case. The expectation is computed
// here from the events by tokens, written apart from the service's
// folding (search.AppendFolded): x/text's transformers, not its loop.

// foldMarks decomposes and drops the combining marks.
var foldMarks = transform.Chain(norm.NFKD, runes.Remove(runes.In(unicode.Mn)))

// asciiLetters spells the letters that do not decompose, as the word
// model says.
var asciiLetters = strings.NewReplacer("ß", "ss", "æ", "ae", "œ", "oe", "ø", "o", "ł", "l", "đ", "d", "ð", "d", "þ", "th", "ı", "i")

func tokens(s string) []string {
	folded, _, err := transform.String(foldMarks, s)
	if err != nil {
		panic(err)
	}
	return strings.FieldsFunc(asciiLetters.Replace(strings.ToLower(folded)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// WordEvents are events of tenant whose texts hold each class of the word
// model, made by a generator seeded with seed, within the hour from start.
func WordEvents(tenant string, seed uint64, start time.Time) []audit.Event {
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, WithIDs: true, Start: start, End: start.Add(time.Hour)}, 16)
	diff := func(field, from, to string) map[string]audit.Change {
		f, _ := json.Marshal(from)
		t, _ := json.Marshal(to)
		return map[string]audit.Change{field: {From: f, To: t}}
	}
	edits := []func(e *audit.Event){
		func(e *audit.Event) {
			e.Actor.UserAgent, e.Reason = "Product/4.12.1 (X11; Linux)", "Préférence de José"
		},
		func(e *audit.Event) { e.Actor.UserAgent, e.Actor.Email = "Product/4.13.0", "ops@eu.mail.acme.example" },
		func(e *audit.Event) {
			e.Actor.Email, e.Diff = "grace@acme.example", diff("greeting", "welcome screen", "screen welcome banner")
		},
		func(e *audit.Event) { e.Diff = diff("note", "alpha beta", "gamma delta") },
		func(e *audit.Event) { e.Diff, e.Reason = diff("queue_name", "main_line", "night_5"), "ticket _&5" },
		func(e *audit.Event) { e.Reason = "JOSE PREFERENCE" },
		func(e *audit.Event) { e.Diff = diff("label", "", "Æther straße Ørsted Łódź ﬁle") },
		func(e *audit.Event) { e.Diff = diff("mixed", "数据中心", "日本語 テキスト") },
		func(e *audit.Event) { e.RequestID = "Req-AbC-77" },
		func(e *audit.Event) { e.RequestID, e.Reason = "req-abc-78", "ticket 5" },
		func(e *audit.Event) { e.Actor.UserAgent = "curl/8.5.0" },
	}
	out := make([]audit.Event, 0, len(edits))
	for _, edit := range edits {
		e := g.Next()
		e.TenantID = tenant
		if e.Action == audit.ActionAccess || e.Diff == nil {
			e.Action = audit.ActionUpdate
		}
		edit(&e)
		if e.Before != nil || e.After != nil { // the snapshots, as the diff now says
			e.Before, e.After = Snapshots(e.Diff)
		}
		e.Normalize()
		out = append(out, e)
	}
	return out
}

// WordCases are queries of every class, found in WordEvents.
var WordCases = []string{
	"jose", "José", "preference", "PRÉFÉRENCE", `"preference de jose"`, `"de jose"`, "aether", "strasse", "orsted", "lodz", "file",
	"4.12", "Product/4.12", `"product 4 12"`, "acme.example", "mail.acme.example", "eu", "12",
	"queue_name", "main_line", "main", "_&5", "night_5", "ticket",
	`"welcome screen"`, `"screen welcome"`, `"beta gamma"`, `"welcome banner"`, `-"welcome screen"`, "-jose",
	"数据中心", "日本語", "テキスト", "pref*", "jos*", "straß*", "ticket OR jose",
	"request:REQ-ABC-77", "REQ-ABC-77", "request:Req-AbC-77,REQ-ABC-78",
}

// testWordModel runs WordCases on WordEvents of a tenant, with the same
// events in a second tenant, which nothing may return.
func testWordModel(t *testing.T, b Backend) {
	october := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	events, others := WordEvents("t-words", 41, october), WordEvents("t-words-other", 42, october)
	Write(t, b.Writer, append(slices.Clone(events), others...))
	b.Visible(t)
	found := 0
	for _, q := range WordCases {
		t.Run(q, func(t *testing.T) {
			f := searched(q)(nil)
			f.TenantID = "t-words"
			f.Normalize()
			want := Expected(events, func(e *audit.Event) bool { return Matches(e, q) }, audit.DefaultSort)
			if got := Walk(t, b.Reader, f, audit.DefaultSort, 100); !slices.Equal(got, want) {
				t.Fatalf("%q: %d events %v, want %d %v", q, len(got), got, len(want), want)
			}
			if len(want) > 0 {
				found++
			}
		})
	}
	if found < len(WordCases)-3 { // "beta gamma", "welcome banner" and "main" find nothing by design
		t.Fatalf("only %d of %d cases find something: the events test little", found, len(WordCases))
	}
}

// Matches is the expectation of a search of q on e, computed from the
// event: every term's (search.Parse's) by its field, free text by tokens.
func Matches(e *audit.Event, q string) bool {
	text, terms, err := search.Parse(q)
	if err != nil {
		panic(q + ": " + err.Error())
	}
	for _, v := range search.FreeText(text) {
		if !textMatch(e, v) {
			return false
		}
	}
	for _, t := range terms {
		if termMatch(e, t) == t.Negate {
			return false
		}
	}
	return true
}

// termMatch reports whether one of t's values matches e (t's negation
// aside), for the terms the word cases use.
func termMatch(e *audit.Event, t audit.Term) bool {
	for _, v := range t.Values {
		switch t.Field {
		case audit.SearchText:
			if textMatch(e, v) {
				return true
			}
		case audit.SearchAny:
			if textMatch(e, v) || !v.Prefix && !strings.ContainsFunc(v.Text, unicode.IsSpace) && pastedIn(e, v.Text) {
				return true
			}
		case audit.SearchRequest:
			if v.Prefix && len(e.RequestID) >= len(v.Text) && strings.EqualFold(e.RequestID[:len(v.Text)], v.Text) ||
				!v.Prefix && strings.EqualFold(e.RequestID, v.Text) {
				return true
			}
		default:
			panic("storetest: no expectation for " + string(t.Field))
		}
	}
	return false
}

// textMatch reports whether free text finds v in e: its tokens next to
// each other in one text of e, the last a prefix when v is one.
func textMatch(e *audit.Event, v audit.TermValue) bool {
	if !v.Prefix {
		return findable(e, v.Text)
	}
	want := tokens(v.Text)
	for _, text := range texts(e) {
		got := tokens(text)
		for i := 0; i+len(want) <= len(got); i++ {
			n := len(want) - 1
			if slices.Equal(got[i:i+n], want[:n]) && strings.HasPrefix(got[i+n], want[n]) {
				return true
			}
		}
	}
	return false
}

// Snapshots are the states before and after that diff makes: its fields'
// from and to values (an event of a versioned type carries both).
func Snapshots(diff map[string]audit.Change) (json.RawMessage, json.RawMessage) {
	before, after := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, c := range diff {
		before[k], after[k] = c.From, c.To
	}
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	return b, a
}

// testTextStaysInItsTenant: free text searched by a tenant whose id is
// another's less its last character reaches none of the other's events,
// in a page or in its count, with a word of the other's events or with a
// prefix made of that character's code ("t-x" and "t-xz" differ by 7a in
// hex, in which the embedded store marks each word with its tenant);
// the other tenant finds its own.
func testTextStaysInItsTenant(t *testing.T, b Backend) {
	ctx := context.Background()
	october := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	Write(t, b.Writer, WordEvents("t-xz", 43, october))
	b.Visible(t)
	search := func(tenant, q string) audit.Result {
		f := searched(q)(nil)
		f.TenantID = tenant
		f.Normalize()
		res, err := b.Reader.SearchEvents(ctx, audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 50, Page: 1})
		if err != nil {
			t.Fatalf("%s %q: %v", tenant, q, err)
		}
		return res
	}
	for _, q := range []string{"7a*", "7a", "jose", "ticket OR jose", "pref*", "reason:ticket"} {
		if res := search("t-x", q); len(res.Events) != 0 || res.Total.Value != 0 {
			t.Errorf("t-x searching %q: %d events, total %+v, of another tenant", q, len(res.Events), res.Total)
		}
	}
	if res := search("t-xz", "jose"); len(res.Events) == 0 || res.Total.Value != int64(len(res.Events)) {
		t.Errorf("t-xz finds %d of its own events for jose (total %+v)", len(res.Events), res.Total)
	}
}
