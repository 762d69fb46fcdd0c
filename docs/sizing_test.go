package docs_test

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSizingQuotesTheBenchmarks (issue 57): docs/production.md's sizing
// tables quote the bytes per event that make bench last measured
// (BENCHMARKS.md), and every projection in them is that figure times the
// events kept, so the page cannot drift from the report.
func TestSizingQuotesTheBenchmarks(t *testing.T) {
	bench, err := os.ReadFile("../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("production.md")
	if err != nil {
		t.Fatal(err)
	}
	perEvent := map[string]float64{}
	for store, label := range map[string]string{"SQLite": "SQLite", "Elasticsearch": "Elasticsearch"} {
		m := regexp.MustCompile(`\| Bytes per event with the log's tree \(` + label + `\) \| (\d+) \(`).FindSubmatch(bench)
		if m == nil {
			t.Fatalf("BENCHMARKS.md has no row of bytes per event for %s: run make bench (log-sqlite, log-elasticsearch)", store)
		}
		perEvent[store], _ = strconv.ParseFloat(string(m[1]), 64)
		quoted := regexp.MustCompile(`\| ` + label + `[^|]* \| ([\d,]+) \|`).FindSubmatch(page)
		if quoted == nil || strings.ReplaceAll(string(quoted[1]), ",", "") != string(m[1]) {
			t.Errorf("production.md quotes %q bytes per event for %s; BENCHMARKS.md measured %s", quoted, store, m[1])
		}
	}
	rows := regexp.MustCompile(`(?m)^\| (Starter|Pro|Enterprise) \| ([\d,]+) \| ([\d,]+) \| ([\d.]+) GB \| ([\d.]+) GB \|$`).FindAllSubmatch(page, -1)
	if len(rows) != 3 {
		t.Fatalf("production.md's projection has %d plan rows, want 3", len(rows))
	}
	num := func(b []byte) float64 {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(string(b), ",", ""), 64)
		return v
	}
	for _, r := range rows {
		events := num(r[3])
		if events != num(r[2])*10000 {
			t.Errorf("%s: %s events kept is not 10,000 a day for %s days", r[1], r[3], r[2])
		}
		for i, store := range []string{"SQLite", "Elasticsearch"} {
			want := fmt.Sprintf("%.1f", math.Round(events*perEvent[store]/1e8)/10)
			if string(r[4+i]) != want {
				t.Errorf("%s on %s: %s GB, want %s", r[1], store, r[4+i], want)
			}
		}
	}
}
