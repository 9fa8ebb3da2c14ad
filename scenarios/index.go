package scenarios

import (
	"maps"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// index finds the few scenarios of a set that may answer a request, so that selection
// tries those rather than every scenario: a suite recorded flow by flow holds thousands,
// and most requests match one of them.
//
// Each scenario is filed under one filing: keys its match requires, any one of which a
// request it matches has. A filing is the literal text its message pattern starts with,
// three bytes of a literal the pattern requires anywhere, a forwardedProps member with a
// text value, a tool, a header, or its agents or routes. Of those its match gives, the
// one fewest other scenarios share is taken. A scenario whose match requires none of
// these (a catch-all, a state pattern alone) is tried for every request.
//
// The keys are folded (ASCII letters to lower case) and a request's are found the same
// way, so a key never misses what the criterion would match: the index may offer a
// scenario that does not match, never leave out one that does. Selection then tries the
// offered scenarios in precedence order with the full match, and so picks what trying
// every scenario in that order picks.
type index struct {
	words    int      // the length of a candidate bitset: one bit a scenario, by rank
	always   []uint64 // the scenarios filed under no key, tried for every request
	keys     map[string][]int32
	trigrams map[uint32][]int32 // by three folded bytes, packed
	// prefixLens are the lengths of the prefix keys filed, ascending; kinds, which
	// kinds of key are filed: a request's keys of other kinds are not looked up.
	prefixLens []int
	kinds      [256]bool
	// literals are, by rank, the folded ASCII literals each scenario's message pattern
	// requires (Match.literals), longest first: a text without one of them is rejected
	// without running the pattern, which costs far more under (?i) with groups.
	literals [][]string
	bitsets  sync.Pool // of *[]uint64, a candidate bitset each
}

// The kinds of key, each a key's first byte.
const (
	kindPrefix    = 'p' // the folded first bytes (at most maxPrefixKey) of the message
	kindForwarded = 'f' // a forwardedProps member's name and text value
	kindTool      = 't' // a tool the client offers
	kindHeader    = 'h' // a header's name, in lower case
	kindAgent     = 'a' // the run's agent
	kindRoute     = 'r' // the run's route
)

// maxPrefixKey is the most bytes of a message's required prefix that its key holds: a
// request's text is looked up once for each length of key filed.
const maxPrefixKey = 16

// filing is one way to file a scenario: keys any one of which a request it matches has.
type filing struct {
	keys    []string
	trigram uint32
	isTri   bool
}

// newIndex files the scenarios, given in precedence order.
func newIndex(list []*Scenario) *index {
	x := &index{words: (len(list) + 63) / 64, keys: map[string][]int32{}, trigrams: map[uint32][]int32{}}
	x.always = make([]uint64, x.words)
	options := make([][]filing, len(list))
	x.literals = make([][]string, len(list))
	popular := map[string]int{}
	popularTri := map[uint32]int{}
	for i, sc := range list {
		options[i] = filings(&sc.Match)
		for _, f := range options[i] {
			for _, k := range f.keys {
				popular[k]++
			}
		}
		x.literals[i] = sc.Match.literals
		for _, t := range sc.Match.trigrams {
			popularTri[t]++
		}
	}
	for i, sc := range list {
		if trigrams := sc.Match.trigrams; len(trigrams) > 0 {
			best := trigrams[0]
			for _, t := range trigrams[1:] {
				if popularTri[t] < popularTri[best] {
					best = t
				}
			}
			options[i] = append(options[i], filing{trigram: best, isTri: true})
		}
		chosen, score := -1, 0
		for k, f := range options[i] {
			n := popularTri[f.trigram]
			if !f.isTri {
				n = 0
				for _, key := range f.keys {
					n += popular[key]
				}
			}
			if chosen < 0 || n < score {
				chosen, score = k, n
			}
		}
		if chosen < 0 {
			x.always[i/64] |= 1 << (i % 64)
			continue
		}
		x.file(options[i][chosen], int32(i))
	}
	return x
}

// file files scenario rank under f.
func (x *index) file(f filing, rank int32) {
	if f.isTri {
		x.trigrams[f.trigram] = append(x.trigrams[f.trigram], rank)
		return
	}
	for _, k := range f.keys {
		x.keys[k] = append(x.keys[k], rank)
		x.kinds[k[0]] = true
		if i, found := slices.BinarySearch(x.prefixLens, len(k)-1); k[0] == kindPrefix && !found {
			x.prefixLens = slices.Insert(x.prefixLens, i, len(k)-1)
		}
	}
}

// filings are the ways a match can be filed, its trigram aside.
func filings(m *Match) []filing {
	var out []filing
	if p := m.prefix; p.text != "" && isASCII(p.text) {
		text := p.text[:min(len(p.text), maxPrefixKey)]
		out = append(out, filing{keys: []string{string(kindPrefix) + foldASCII(text)}})
	}
	for _, name := range slices.Sorted(maps.Keys(m.ForwardedProps)) { // sorted: the same set is filed the same way each time
		if s, ok := m.ForwardedProps[name].(string); ok {
			out = append(out, filing{keys: []string{forwardedKey(name, s)}})
		}
	}
	for _, name := range m.Tools {
		out = append(out, filing{keys: []string{string(kindTool) + name}})
	}
	for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
		out = append(out, filing{keys: []string{string(kindHeader) + strings.ToLower(name)}})
	}
	if len(m.Agents) > 0 {
		out = append(out, filing{keys: prefixed(kindAgent, m.Agents)})
	}
	if len(m.Routes) > 0 {
		out = append(out, filing{keys: prefixed(kindRoute, m.Routes)})
	}
	return out
}

// forwardedKey is the key of a forwardedProps member with a text value.
func forwardedKey(name, value string) string {
	return string(kindForwarded) + name + "\x00" + value
}

func prefixed(kind byte, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(kind) + n
	}
	return out
}

// requiredLiterals returns the ASCII literals that every text the pattern matches
// contains, folded, longest first. Non-ASCII literals are left out: under (?i) they
// fold to other bytes.
func requiredLiterals(re *regexp.Regexp) []string {
	if re == nil {
		return nil
	}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	var out []string
	var walk func(t *syntax.Regexp)
	walk = func(t *syntax.Regexp) {
		switch t.Op {
		case syntax.OpLiteral:
			if text := string(t.Rune); isASCII(text) && !slices.Contains(out, foldASCII(text)) {
				out = append(out, foldASCII(text))
			}
		case syntax.OpCapture, syntax.OpPlus:
			walk(t.Sub[0])
		case syntax.OpRepeat:
			if t.Min >= 1 {
				walk(t.Sub[0])
			}
		case syntax.OpConcat:
			for _, sub := range t.Sub {
				walk(sub)
			}
		}
	}
	walk(tree.Simplify())
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// trigramsOf returns the trigrams of folded literals, each once.
func trigramsOf(literals []string) []uint32 {
	var out []uint32
	for _, text := range literals {
		for i := 0; i+3 <= len(text); i++ {
			if tri := pack(text[i], text[i+1], text[i+2]); !slices.Contains(out, tri) {
				out = append(out, tri)
			}
		}
	}
	return out
}

// first returns the scenario of highest precedence among list (the set's scenarios, in
// precedence order) whose match holds for the request, or nil.
func (x *index) first(list []*Scenario, req *Request, text string) *Scenario {
	set := x.candidates(req, text)
	defer x.bitsets.Put(set)
	folded, isFolded := "", false
	for w, word := range *set {
		for ; word != 0; word &= word - 1 {
			rank := w*64 + bits.TrailingZeros64(word)
			if lits := x.literals[rank]; len(lits) > 0 {
				if !isFolded {
					folded, isFolded = foldText(text), true
				}
				if !containsAll(folded, lits) {
					continue
				}
			}
			if sc := list[rank]; sc.Match.holds(req, text) {
				return sc
			}
		}
	}
	return nil
}

// foldText is a text as literals are matched against it: the letters (?i) folds to
// ASCII ones replaced, ASCII letters in lower case.
func foldText(text string) string { return foldASCII(foldSpecial(text)) }

// containsAll reports whether text contains every literal.
func containsAll(text string, literals []string) bool {
	for _, l := range literals {
		if !strings.Contains(text, l) {
			return false
		}
	}
	return true
}

// candidates returns a bitset of the scenarios that may match the request: those filed
// under no key, and those filed under a key the request has. The caller puts it back.
func (x *index) candidates(req *Request, text string) *[]uint64 {
	set, _ := x.bitsets.Get().(*[]uint64)
	if set == nil {
		s := make([]uint64, x.words)
		set = &s
	}
	copy(*set, x.always)
	mark := func(ranks []int32) {
		for _, r := range ranks {
			(*set)[r/64] |= 1 << (r % 64)
		}
	}
	var buf [128]byte
	key := buf[:0]
	if len(x.prefixLens) > 0 || len(x.trigrams) > 0 {
		folded := foldSpecial(text)
		if len(x.prefixLens) > 0 {
			key = append(key[:0], kindPrefix)
			for i := 0; i < len(folded) && i < maxPrefixKey; i++ {
				key = append(key, lower(folded[i]))
			}
			for _, n := range x.prefixLens {
				if n > len(key)-1 {
					break
				}
				mark(x.keys[string(key[:1+n])])
			}
		}
		if len(x.trigrams) > 0 {
			for i := 0; i+3 <= len(folded); i++ {
				if ranks, ok := x.trigrams[pack(lower(folded[i]), lower(folded[i+1]), lower(folded[i+2]))]; ok {
					mark(ranks)
				}
			}
		}
	}
	if x.kinds[kindForwarded] {
		fp, _ := req.Input.ForwardedProps.(map[string]any)
		for name, v := range fp {
			if s, ok := v.(string); ok {
				key = append(append(append(append(key[:0], kindForwarded), name...), 0), s...)
				mark(x.keys[string(key)])
			}
		}
	}
	if x.kinds[kindTool] {
		for _, t := range req.Input.Tools {
			mark(x.keys[string(append(append(key[:0], kindTool), t.Name...))])
		}
	}
	if x.kinds[kindHeader] {
		for name := range req.Header {
			key = append(key[:0], kindHeader)
			for i := 0; i < len(name); i++ {
				key = append(key, lower(name[i]))
			}
			mark(x.keys[string(key)])
		}
	}
	if x.kinds[kindAgent] {
		mark(x.keys[string(append(append(key[:0], kindAgent), req.Agent...))])
	}
	if x.kinds[kindRoute] {
		mark(x.keys[string(append(append(key[:0], kindRoute), req.Route...))])
	}
	return set
}

// foldSpecial replaces the two non-ASCII letters that (?i) folds to ASCII ones — the
// Kelvin sign to k, the long s to s — so that the folded keys of a text find the
// literals they match.
func foldSpecial(text string) string {
	if !strings.ContainsRune(text, '\u212a') && !strings.ContainsRune(text, '\u017f') {
		return text
	}
	return strings.NewReplacer("\u212a", "k", "\u017f", "s").Replace(text)
}

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func foldASCII(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = lower(b[i])
	}
	return string(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func pack(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }
