package main

import (
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestMergeReplacesOnlyTheRerunBenchmark: a partial run's rows and method
// sections replace those of the same names in a full report; every other
// row, section and the micro-benchmarks stay as they were.
func TestMergeReplacesOnlyTheRerunBenchmark(t *testing.T) {
	e := &env{scale: 1, runs: 2}
	full := render(e, []result{
		{Name: "A", Unit: "ms", Samples: []float64{1, 2, 3}, Target: "(reported)", Method: "method A"},
		{Name: "B", Unit: "MB", Samples: []float64{10, 10, 10}, Target: "(reported)", Method: "method B, old"},
		{Name: "C", Unit: "ms", Samples: []float64{7}, Target: "(reported)", Method: "method C"},
	}, time.Minute) + "\n## Go micro-benchmarks\n\nBenchmarkX 1 ns/op\n"
	got, err := merge(full, e, []result{{Name: "B", Unit: "MB", Samples: []float64{42, 43}, Target: "(reported)", Method: "method B, new"}}, time.Second, "b")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| A | 2.0 (1.0–3.0) ms", "| B | 42 (42–43) MB", "| C | 7.0", "method A", "method B, new", "method C", "Runs: 42.0, 43.0 MB",
		"BenchmarkX 1 ns/op", "Re-run of `-only b`"} {
		if !strings.Contains(got, want) {
			t.Errorf("merged report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "method B, old") || strings.Contains(got, "| B | 10") {
		t.Errorf("the old B is still there:\n%s", got)
	}
	if strings.Index(got, "### A") > strings.Index(got, "### B") || strings.Index(got, "### B") > strings.Index(got, "### C") {
		t.Errorf("sections out of order:\n%s", got)
	}
	// A benchmark added since the full run goes last, row and method.
	got, err = merge(full, e, []result{{Name: "D", Unit: "ms", Samples: []float64{5}, Target: "(reported)", Method: "method D"}}, time.Second, "d")
	if err != nil {
		t.Fatal(err)
	}
	rowC, rowD, summaryEnd := strings.Index(got, "| C | "), strings.Index(got, "| D | 5.0"), strings.Index(got, "## Method")
	if rowD < 0 || rowD < rowC || rowD > summaryEnd || strings.Index(got, "### D") < strings.Index(got, "### C") ||
		strings.Index(got, "### D") > strings.Index(got, "## Go micro-benchmarks") {
		t.Errorf("the new benchmark D is not last in the summary and the methods:\n%s", got)
	}
}

// The steady-state backing indices of a stream per plan match what the
// test node showed (issue 18: 5–6 Starter, 13–14 Pro, 29–30 Enterprise).
func TestSteadyIndices(t *testing.T) {
	for plan, want := range map[audit.Plan]int{audit.PlanStarter: 6, audit.PlanPro: 14, audit.PlanEnterprise: 30} {
		if got := steadyIndices(plan); got != want {
			t.Errorf("%s: %d backing indices, want %d", plan, got, want)
		}
	}
	cum := make([]float64, 200)
	for i := range cum {
		cum[i] = float64(i+1) / 200 // 200 equal shares
	}
	if got := promoteThreshold(cum, 2000); got != 10 {
		t.Errorf("threshold of equal shares: %d, want 10", got)
	}
}
