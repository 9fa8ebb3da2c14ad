package scenarios

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// maxSampleBytes bounds the text sampleMessage builds, whatever the pattern's repeats.
const maxSampleBytes = 4096

// sampleMessage returns a text the pattern matches, with every group it reaches filled,
// for the dry run of a scenario that gives no example: templates reading the captures of
// the scenario's own match.message then render with values of the right shape. It
// takes the first alternative, one pass of each open-ended repeat and a plain member of
// each class; ok is false when that text does not match (a pattern it cannot satisfy
// that way, such as one whose anchors the walk ignores).
func sampleMessage(re *regexp.Regexp) (text string, ok bool) {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writeMatching(&b, parsed.Simplify()) || b.Len() > maxSampleBytes {
		return "", false
	}
	text = b.String()
	return text, re.MatchString(text)
}

// writeMatching writes a text re matches; false when re matches nothing or the text grows
// past maxSampleBytes.
func writeMatching(b *strings.Builder, re *syntax.Regexp) bool {
	if b.Len() > maxSampleBytes {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		r, ok := classMember(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture, syntax.OpPlus, syntax.OpStar, syntax.OpQuest:
		return writeMatching(b, re.Sub[0]) // one pass: the group inside is filled
	case syntax.OpRepeat:
		for range max(re.Min, min(re.Max, 1)) {
			if !writeMatching(b, re.Sub[0]) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !writeMatching(b, sub) {
				return false
			}
		}
	case syntax.OpAlternate:
		return writeMatching(b, re.Sub[0])
	}
	// anchors, word boundaries and the empty match write nothing
	return true
}

// classMember picks a member of a character class (pairs of lo, hi ranges): a letter or
// digit where the class has one, else its first printable rune.
func classMember(ranges []rune) (rune, bool) {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range "a0A x-_.," {
		if in(r) {
			return r, true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+256; r++ {
			if unicode.IsPrint(r) {
				return r, true
			}
		}
	}
	if len(ranges) >= 2 {
		return ranges[0], true
	}
	return 0, false
}
