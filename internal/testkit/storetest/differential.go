package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/gen"
)

// The differential search check (issue 56): the same awkward events on
// two stores, and queries drawn from the search language's grammar over
// their words; any difference in the ids returned fails, with the
// smallest query that still differs (terms dropped one by one) and the
// events the stores disagree on.

// fragments are what the awkward texts are made of: accents, dotted
// versions, sub-domains, underscores, punctuation, other scripts,
// ligatures, apostrophes, and plain words that the others fold or split to.
var fragments = []string{
	"José", "jose", "JOSÉ", "Préférence", "preference", "Product/4.12.1", "Product/4.12", "4.12", "v4", "eu.mail.acme.example",
	"acme.example", "mail", "queue_main", "main", "_", "&", "5", "night_5", "welcome", "screen", "alpha", "beta", "ÆTHER", "aether",
	"straße", "strasse", "Ørsted", "日本語", "テキスト", "O'Brien", "obrien", "o", "brien", "ﬁle", "file", "İstanbul", "istanbul",
	"e\u0301te", "été", "1,5", "10:30", "a;b", "x.y", "CS-4821", "cs", "4821", "Ⅻ", "x²", "x2", "don’t", "dont", "-", "--", "&&", "…",
}

var joiners = []string{" ", " ", " ", "", ".", "-", "/", "_", "@", ":", ", "}

// awkwardText joins 1 to 5 fragments with random separators.
func awkwardText(rng *rand.Rand) string {
	var b strings.Builder
	for i := range 1 + rng.IntN(5) {
		if i > 0 {
			b.WriteString(joiners[rng.IntN(len(joiners))])
		}
		b.WriteString(fragments[rng.IntN(len(fragments))])
	}
	return b.String()
}

// AwkwardEvents are n events of tenant whose user agent, reason, request
// id and diff are awkward texts.
func AwkwardEvents(tenant string, seed uint64, n int) []audit.Event {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, WithIDs: true, Start: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
		End: time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)}, n)
	ids := []string{"Req-AbC-1", "req-abc-1", "REQ-ABC-2", "r_1", "r-1"}
	out := make([]audit.Event, 0, n)
	for range n {
		e := g.Next()
		e.TenantID = tenant
		e.Actor.UserAgent = awkwardText(rng)
		e.Reason, e.RequestID = "", ids[rng.IntN(len(ids))]
		if rng.IntN(2) == 0 {
			e.Reason = awkwardText(rng)
		}
		if e.Action == audit.ActionAccess {
			e.Action = audit.ActionUpdate
		}
		versioned := e.Before != nil || e.After != nil
		e.Diff = map[string]audit.Change{}
		for i := range 1 + rng.IntN(3) {
			from, _ := json.Marshal(awkwardText(rng))
			to, _ := json.Marshal(awkwardText(rng))
			e.Diff[fmt.Sprintf("field_%d", i)] = audit.Change{From: from, To: to}
		}
		if versioned {
			e.Before, e.After = Snapshots(e.Diff)
		}
		e.Normalize()
		out = append(out, e)
	}
	return out
}

// randomQuery is one to three terms over the events' words: a word or a
// phrase of words next to each other in one text (quoted, or pasted with
// its separators), a prefix, a negation, an OR, reason: or request:.
func randomQuery(rng *rand.Rand, events []audit.Event) string {
	term := func() string {
		e := &events[rng.IntN(len(events))]
		ts := texts(e)
		text := ts[rng.IntN(len(ts))]
		ws := search.Words(text)
		if rng.IntN(4) == 0 || len(ws) == 0 {
			return fragments[rng.IntN(len(fragments))] // as typed, not as stored
		}
		i := rng.IntN(len(ws))
		j := min(len(ws), i+1+rng.IntN(3))
		phrase := ws[i:j]
		switch rng.IntN(8) {
		case 0:
			return strings.Join(phrase, joiners[1+rng.IntN(len(joiners)-1)])
		case 1:
			if r := []rune(ws[i]); len(r) > 2 {
				return string(r[:2+rng.IntN(len(r)-2)]) + "*"
			}
		case 2:
			return "reason:\"" + strings.Join(phrase, " ") + "\""
		case 3:
			return "request:" + strings.ToUpper(e.RequestID)
		}
		if len(phrase) > 1 {
			return "\"" + strings.Join(phrase, " ") + "\""
		}
		return phrase[0]
	}
	var terms []string
	for range 1 + rng.IntN(3) {
		t := term()
		switch rng.IntN(6) {
		case 0:
			t = "-" + t
		case 1:
			if !strings.Contains(t, ":") {
				t += " OR " + term()
			}
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " ")
}

// Differential writes AwkwardEvents to both stores and compares the ids
// each returns for a number of random queries of seed's. A query the
// language refuses is refused on both stores alike (search.Parse is
// shared) and counted, not compared.
func Differential(t *testing.T, a, b Backend, seed uint64, events, queries int) {
	tenant := fmt.Sprintf("t-diff-%d", seed)
	evs := AwkwardEvents(tenant, seed, events)
	Write(t, a.Writer, evs)
	Write(t, b.Writer, evs)
	a.Visible(t)
	b.Visible(t)
	rng := rand.New(rand.NewPCG(seed, 0xd1ff))
	qs := make([]string, queries)
	for i := range qs {
		qs[i] = randomQuery(rng, evs)
	}
	// Eight at a time: the stores answer concurrently anyway, and a run
	// of thousands one by one took minutes.
	type answer struct {
		a, b []string
		err  error
	}
	answers := make([]answer, len(qs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				ga, gb, err := bothAnswers(a, b, tenant, qs[i])
				answers[i] = answer{ga, gb, err}
			}
		})
	}
	for i := range qs {
		next <- i
	}
	close(next)
	wg.Wait()
	compared, refused, found := 0, 0, 0
	for i, q := range qs {
		r := answers[i]
		if audit.ErrorCode(r.err) == audit.EINVALID {
			refused++
			continue
		}
		if r.err != nil {
			t.Fatalf("%q: %v", q, r.err)
		}
		compared++
		if len(r.a) > 0 {
			found++
		}
		if !slices.Equal(r.a, r.b) {
			small := shrink(a, b, tenant, q)
			ga, gb, _ := bothAnswers(a, b, tenant, small)
			t.Fatalf("seed %d: the stores differ on %q (smallest: %q): %d ids against %d\n%s", seed, q, small, len(ga), len(gb), differing(evs, ga, gb))
		}
	}
	t.Logf("seed %d: %d queries compared, %d finding something; %d refused by the language", seed, compared, found, refused)
	if compared < queries/2 || found < compared/4 {
		t.Fatalf("seed %d: %d of %d queries compared, %d finding something: the generator tests little", seed, compared, queries, found)
	}
}

// bothAnswers is each store's ids for q (one page: the events are
// fewer than a page holds), or the language's error.
func bothAnswers(a, b Backend, tenant, q string) ([]string, []string, error) {
	text, terms, err := search.Parse(q)
	if err != nil {
		return nil, nil, err
	}
	f := audit.Filter{TenantID: tenant, Q: text, Terms: terms}
	f.Normalize()
	ids := func(r audit.EventReader) ([]string, error) {
		res, err := r.SearchEvents(context.Background(), audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: audit.MaxPageSize, Page: 1, NoTotal: true})
		if err != nil {
			return nil, err
		}
		out := make([]string, len(res.Events))
		for i := range res.Events {
			out[i] = res.Events[i].ID
		}
		return out, nil
	}
	ga, err := ids(a.Reader)
	if err != nil {
		return nil, nil, err
	}
	gb, err := ids(b.Reader)
	return ga, gb, err
}

// shrink drops q's terms one at a time while the stores still differ.
func shrink(a, b Backend, tenant, q string) string {
	for {
		terms := search.Tokens(q)
		smaller := false
		for i := range terms {
			c := strings.Join(slices.Delete(slices.Clone(terms), i, i+1), " ")
			if ga, gb, err := bothAnswers(a, b, tenant, c); c != "" && err == nil && !slices.Equal(ga, gb) {
				q, smaller = c, true
				break
			}
		}
		if !smaller {
			return q
		}
	}
}

// differing lists the events one store returned and the other did not,
// with their texts (the first ten).
func differing(events []audit.Event, a, b []string) string {
	var out strings.Builder
	n := 0
	for i := range events {
		e := &events[i]
		inA, inB := slices.Contains(a, e.ID), slices.Contains(b, e.ID)
		if inA != inB {
			if n++; n > 10 {
				fmt.Fprintf(&out, "  …\n")
				break
			}
			fmt.Fprintf(&out, "  %s (first store %v, second %v): request %q, texts %q\n", e.ID, inA, inB, e.RequestID, texts(e))
		}
	}
	return out.String()
}
