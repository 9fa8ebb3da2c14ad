package scenarios

import "strings"

// Closest returns the candidate nearest to got, case ignored, when one is within three
// edits of it: the "did you mean" of a misspelt name.
func Closest(got string, candidates []string) (string, bool) {
	best, bestDist := "", 4
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(got), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, best != ""
}

func editDistance(a, b string) int {
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
