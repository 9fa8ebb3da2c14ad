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
