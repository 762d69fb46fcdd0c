package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// markdownFiles are the pages whose links are checked: the README, every
// page of docs/, the benchmarks report and the panel's README.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, "../README.md", "../BENCHMARKS.md", "../panel/README.md")
}

var (
	linkRe   = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	inlineRe = regexp.MustCompile("`[^`]*`")
	idRe     = regexp.MustCompile(`(?:id|name)="([^"]+)"`)
)

// TestLinksResolve (issue 44): every relative link of the documentation
// names a file that exists, and every #anchor a heading (or an id) of the
// page it points into, as GitHub renders them; links to other sites are
// not followed.
func TestLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	checked := 0
	for _, f := range markdownFiles(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(raw)) {
			for _, m := range linkRe.FindAllStringSubmatch(inlineRe.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := f
				if path != "" {
					dest = filepath.Join(filepath.Dir(f), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: %s: no such file", f, n+1, target)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if anchors[dest] == nil {
					anchors[dest] = pageAnchors(t, dest)
				}
				if !anchors[dest][anchor] {
					t.Errorf("%s:%d: %s: %s has no heading with that anchor", f, n+1, target, dest)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d relative links checked: the pattern misses them", checked)
	}
}

// proseLines are the lines of a page, those inside fenced code blocks
// blanked (they are shown, not followed).
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
		} else if in {
			lines[i] = ""
		}
	}
	return lines
}

// pageAnchors are the anchors GitHub gives a page's headings (a repeated
// one gets -1, -2, …) and the ids its HTML declares.
func pageAnchors(t *testing.T, path string) map[string]bool {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, count := map[string]bool{}, map[string]int{}
	for _, l := range proseLines(string(raw)) {
		for _, m := range idRe.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		h := strings.TrimLeft(l, "#")
		if len(h) == len(l) || !strings.HasPrefix(h, " ") {
			continue
		}
		s := slug(h)
		if k := count[s]; k > 0 {
			out[s+"-"+strconv.Itoa(k)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	return out
}

// slug is GitHub's anchor of a heading: lower case, punctuation but
// hyphens and underscores dropped, spaces as hyphens.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
