package scenarios

import (
	"math/bits"
	"slices"
	"sort"
	"strings"
)

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

// maxExplainedOwn bounds how many of the developer's scenarios a run that a built-in
// one answered is compared with: explaining a miss tries every criterion of a scenario,
// and a recorded suite holds thousands of them, so an unbounded comparison would cost
// each such run what selection through the index saves.
const maxExplainedOwn = 64

// maxNearest is how many near misses are told.
const maxNearest = 3

// MissedOwn says why the developer's own scenarios (those of sources other than Fallback
// ones) missed a request that a built-in one answered: the nearest of them, those that
// missed by the fewest reasons first, with the reasons. What a scenario of theirs
// answered, or a set without any, gives none; so does a run on a route that the built-in
// scenario names and none of theirs does (the Dojo's /agentic_chat, played by the
// built-in scenarios on purpose).
//
// At most maxExplainedOwn of theirs are compared: all of them when they are no more,
// else those the index offers for the request, which share a key with it (a message
// prefix or trigram, a forwardedProps value, a tool, a header, the agent or the route),
// then the rest in precedence order until the bound.
func (s *Set) MissedOwn(req *Request, answered *Scenario) []Candidate {
	if !answered.fallback {
		return nil
	}
	// The built-in scenarios sort after every other (sortByPrecedence): the
	// developer's are the ranks before the first of them.
	own := sort.Search(len(s.scenarios), func(i int) bool { return s.scenarios[i].fallback })
	if own == 0 || (slices.Contains(answered.Match.Routes, req.Route) && !s.ownName(req.Route, own)) {
		return nil
	}
	misses := make([]Candidate, 0, min(own, maxExplainedOwn))
	for _, rank := range s.ownToExplain(req, own) {
		sc := s.scenarios[rank]
		_, reasons := sc.Match.test(req)
		misses = append(misses, Candidate{ID: sc.ID, Source: sc.Source.String(), Reasons: reasons})
	}
	sort.SliceStable(misses, func(i, j int) bool { return len(misses[i].Reasons) < len(misses[j].Reasons) })
	return misses[:min(maxNearest, len(misses))]
}

// ownName reports whether one of the developer's scenarios, the set's first own ranks,
// names the route in its match.
func (s *Set) ownName(route string, own int) bool {
	return slices.ContainsFunc(s.scenarios[:own], func(sc *Scenario) bool { return slices.Contains(sc.Match.Routes, route) })
}

// ownToExplain returns the ranks, ascending, of the developer's scenarios that
// MissedOwn compares with the request; own is how many they are, the set's first ranks.
func (s *Set) ownToExplain(req *Request, own int) []int {
	ranks := make([]int, 0, min(own, maxExplainedOwn))
	if own <= maxExplainedOwn {
		for rank := range own {
			ranks = append(ranks, rank)
		}
		return ranks
	}
	msg, _ := req.Input.LastUserMessage()
	offered := s.index.candidates(req, msg.Text())
	defer s.index.bitsets.Put(offered)
offer:
	for w, word := range *offered {
		for ; word != 0; word &= word - 1 {
			rank := w*64 + bits.TrailingZeros64(word)
			if rank >= own || len(ranks) == maxExplainedOwn {
				break offer
			}
			ranks = append(ranks, rank)
		}
	}
	for rank := 0; len(ranks) < maxExplainedOwn; rank++ { // own > maxExplainedOwn: enough are left
		if (*offered)[rank/64]&(1<<(rank%64)) == 0 {
			ranks = append(ranks, rank)
		}
	}
	slices.Sort(ranks)
	return ranks
}
