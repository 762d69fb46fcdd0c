package elasticsearch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

// answer is a search answer with the sources given, as Elasticsearch
// writes it with filter_path (and, here, keys a filter would drop too).
func answer(sources ...string) string {
	var hits []string
	for _, s := range sources {
		hits = append(hits, `{"_index":"x", "_source" : `+s+`}`)
	}
	return `{"took":3,"hits":{"total":{"value":12,"relation":"gte"},"max_score":null,"hits":[` + strings.Join(hits, " , ") + `]},"_shards":{"ok":[1]}}`
}

func TestParsePageReadsTheTotalAndTheSources(t *testing.T) {
	srcs := []string{`{"id":"a","after":{"k":[1,2]}}`, `{"id":"b","reason":"\"q\" \\ \u00e9"}`, `{}`}
	out, err := parsePage([]byte(answer(srcs...)), false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Total != 12 || out.Relation != "gte" || out.Cut || len(out.Sources) != 3 {
		t.Fatalf("got %+v", out)
	}
	for i, s := range srcs {
		if string(out.Sources[i]) != s {
			t.Errorf("source %d: %s, want %s", i, out.Sources[i], s)
		}
	}
	if out, err := parsePage([]byte(`{"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`), false); err != nil || len(out.Sources) != 0 || out.Cut {
		t.Fatalf("an empty page: %+v, %v", out, err)
	}
	if _, err := parsePage([]byte(`{"hits":{"hits":[{"_source":{"a":}}]}}`), false); err == nil {
		t.Fatal("a broken answer was read")
	}
}

// large is a source of n bytes.
func large(i, n int) string {
	pad := n - len(fmt.Sprintf(`{"id":"%d","pad":""}`, i))
	return fmt.Sprintf(`{"id":"%d","pad":"%s"}`, i, strings.Repeat("x", pad))
}

// TestParsePageStopsAtThePageBudget: hits join while the budget admits
// them; the first that does not ends the page, which is marked cut, as
// when the bytes read end inside a hit after the budget is spent.
func TestParsePageStopsAtThePageBudget(t *testing.T) {
	const size = 1 << 20
	var srcs []string
	for i := 0; i < 20; i++ {
		srcs = append(srcs, large(i, size))
	}
	var budget audit.PageBudget
	fit := 0
	for fit < len(srcs) && budget.Fits(len(srcs[fit])) {
		fit++
	}
	whole := answer(srcs...)
	out, err := parsePage([]byte(whole), false)
	if err != nil || !out.Cut || len(out.Sources) != fit {
		t.Fatalf("the whole answer: %d sources, cut %v, %v; want %d, cut", len(out.Sources), out.Cut, err, fit)
	}
	cutAt := strings.Index(whole, srcs[fit-1]) + size/2 // inside the last hit that fits
	out, err = parsePage([]byte(whole[:cutAt]), true)
	if err != nil || !out.Cut || len(out.Sources) != fit-1 {
		t.Fatalf("read up to a hit: %d sources, cut %v, %v; want %d, cut", len(out.Sources), out.Cut, err, fit-1)
	}
	var first audit.Event
	if err := json.Unmarshal(out.Sources[0], &first); err != nil || first.ID != "0" {
		t.Fatalf("the first source: %v %q", err, first.ID)
	}
	if _, err := parsePage([]byte(whole[:100]), true); err == nil {
		t.Fatal("an answer cut inside its first hit was read as a page")
	}
}
