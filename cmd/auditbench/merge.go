package main

import (
	"fmt"
	"strings"
	"time"
)

// merge puts the results of a partial run (-only) into old, the report of
// a full run: the summary rows and method sections of the benchmarks run
// are replaced by theirs, every other line is kept, and a line under the
// title says which were re-run, when and how. A result whose name old
// does not have (a benchmark added since) is appended.
func merge(old string, e *env, results []result, took time.Duration, only string) (string, error) {
	fresh := render(e, results, took)
	_, _, freshMethods, _ := splitReport(fresh)
	head, order, methods, tail := splitReport(old)
	lines := strings.Split(head, "\n")
	for _, r := range results {
		row, ok := summaryRow(fresh, r.Name)
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "| "+r.Name+" | ") {
				at = i
			}
		}
		if !ok {
			return "", fmt.Errorf("merge: no summary row for %q", r.Name)
		}
		if _, has := methods[r.Name]; at < 0 || !has {
			// A benchmark new since the full run: its row goes last in the
			// summary table, its method last among the methods.
			at = lastSummaryRow(lines)
			if at < 0 {
				return "", fmt.Errorf("merge: the report has no summary table")
			}
			lines = append(lines[:at+1], append([]string{row}, lines[at+1:]...)...)
			order = append(order, r.Name)
		} else {
			lines[at] = row
		}
		methods[r.Name] = freshMethods[r.Name]
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "Written by `make bench`") {
			lines[i] = l + fmt.Sprintf("\n\nRe-run of `-only %s` on %s (scale %g, %d runs after one warm-up, %s), merged in: its rows and method sections are from that run, all others from the full run above.",
				only, time.Now().UTC().Format("2006-01-02 15:04 UTC"), e.scale, e.runs, took.Round(time.Second))
			break
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(lines, "\n"))
	for _, name := range order {
		b.WriteString(methods[name])
	}
	b.WriteString(tail)
	return b.String(), nil
}

// splitReport cuts a report into the part up to its method sections, the
// sections' names in order and their text (each from its "### " line),
// and what follows them (the Go micro-benchmarks scripts/bench.sh
// appends).
func splitReport(s string) (head string, order []string, methods map[string]string, tail string) {
	const mark = "## Method\n\n"
	methods = map[string]string{}
	i := strings.Index(s, mark)
	if i < 0 {
		return s, nil, methods, ""
	}
	head, rest := s[:i+len(mark)], s[i+len(mark):]
	if j := strings.Index(rest, "\n## Go micro-benchmarks"); j >= 0 {
		rest, tail = rest[:j], rest[j:]
	}
	var starts []int
	for p := 0; p < len(rest); p++ {
		if strings.HasPrefix(rest[p:], "### ") && (p == 0 || rest[p-1] == '\n') {
			starts = append(starts, p)
		}
	}
	for k, p := range starts {
		end := len(rest)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		name, _, _ := strings.Cut(rest[p+4:], "\n")
		order, methods[name] = append(order, name), rest[p:end]
	}
	return head, order, methods, tail
}

// summaryRow is the summary table's row of the benchmark named name.
func summaryRow(report, name string) (string, bool) {
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "| "+name+" | ") {
			return l, true
		}
	}
	return "", false
}

// lastSummaryRow is the index of the summary table's last row.
func lastSummaryRow(lines []string) int {
	at, in := -1, false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "| Benchmark |"):
			in = true
		case in && strings.HasPrefix(l, "| "):
			at = i
		case in && l == "":
			if at >= 0 {
				return at
			}
		}
	}
	return at
}
