// Package didyoumean finds the known name a mistyped one was meant to be:
// for an unknown variable, query parameter or command, the message names
// the closest known one (issue 57). The edit distance is written here
// rather than imported: 15 lines for a message.
package didyoumean

// Closest returns the candidate nearest to name (Levenshtein distance,
// ties to the earliest candidate), and whether it is near enough to be
// what was meant: at most 2 edits, or a third of name's length.
func Closest(name string, candidates []string) (string, bool) {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := Distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != "" && (bestD <= 2 || bestD <= len(name)/3)
}

// Suggest is " (did you mean X?)" when Closest finds a name near enough,
// else "".
func Suggest(name string, candidates []string) string {
	if c, ok := Closest(name, candidates); ok {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// Distance is the Levenshtein distance of a and b, by bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
