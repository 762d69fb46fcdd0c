package audit_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

// leaf is a generated scalar: its meaning, and how it is spelled.
type leaf struct {
	kind  int // 0 string, 1 number, 2 bool, 3 null
	n     int
	spell int // a spelling of the same meaning
}

func (l leaf) json() string {
	switch l.kind {
	case 0:
		if l.spell%2 == 1 { // the same string with its first letter escaped
			return fmt.Sprintf(`"\u0073%d"`, l.n)
		}
		return fmt.Sprintf(`"s%d"`, l.n)
	case 1:
		return [...]string{"%d", "%d.0", "%de0"}[l.spell%3] // 1, 1.0, 1e0
	case 2:
		return fmt.Sprint(l.n%2 == 0)
	}
	return "null"
}

// TestDeepDiffNamesExactlyTheChangedLeaves: generated states, and a copy
// with some leaves changed in meaning and others only spelled otherwise
// (a number as 1, 1.0 or 1e0, a string with an escaped letter): the
// diff names exactly the leaves whose meaning changed, whatever the
// spelling of the others.
func TestDeepDiffNamesExactlyTheChangedLeaves(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for run := range 2000 {
		leaves := map[string]leaf{}
		var paths []string
		for i := range 1 + r.IntN(12) {
			p := fmt.Sprintf("k%d", i)
			if r.IntN(3) == 0 {
				p = fmt.Sprintf("o%d.k%d", r.IntN(3), i) // nested one level
			}
			paths = append(paths, p)
			leaves[p] = leaf{kind: r.IntN(4), n: r.IntN(5), spell: r.IntN(3)}
		}
		after := map[string]leaf{}
		want := []string{}
		for p, l := range leaves {
			switch r.IntN(3) {
			case 0: // changed in meaning
				m := l
				if l.kind == 3 {
					m.kind = 0
				} else {
					m.n++
				}
				after[p] = m
				want = append(want, p)
			case 1: // spelled otherwise
				l.spell++
				after[p] = l
			default:
				after[p] = l
			}
		}
		got, err := audit.DeepDiff([]byte(state(paths, leaves)), []byte(state(paths, after)))
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Fatalf("run %d:\nbefore %s\nafter  %s\ndiff names %v, want %v", run, state(paths, leaves), state(paths, after), keys, want)
		}
	}
}

// state writes the leaves as a JSON object (paths "o.k" nested once), in
// the order of paths.
func state(paths []string, leaves map[string]leaf) string {
	top := map[string][]string{}
	var order []string
	for _, p := range paths {
		o, k, nested := strings.Cut(p, ".")
		v := leaves[p].json()
		if strings.Contains(v, "%d") {
			v = fmt.Sprintf(v, leaves[p].n)
		}
		if !nested {
			order = append(order, fmt.Sprintf("%q:%s", p, v))
			continue
		}
		if _, ok := top[o]; !ok {
			order = append(order, o)
		}
		top[o] = append(top[o], fmt.Sprintf("%q:%s", k, v))
	}
	for i, m := range order {
		if ms, ok := top[m]; ok {
			order[i] = fmt.Sprintf("%q:{%s}", m, strings.Join(ms, ","))
		}
	}
	return "{" + strings.Join(order, ",") + "}"
}
