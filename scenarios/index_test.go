package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/textproto"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/agui-mock/agui-mock/protocol"
)

// linearSelect is selection without the index: every scenario tried in precedence order
// with its whole match, then the nearest misses; what the index must always agree with.
func linearSelect(s *Set, req *Request) (*Scenario, []Candidate) {
	for _, sc := range s.scenarios {
		if _, reasons := sc.Match.test(req); len(reasons) == 0 {
			return sc, nil
		}
	}
	misses := []Candidate{}
	for _, sc := range s.scenarios {
		_, reasons := sc.Match.test(req)
		misses = append(misses, Candidate{ID: sc.ID, Source: sc.Source.String(), Reasons: reasons})
	}
	sort.SliceStable(misses, func(i, j int) bool { return len(misses[i].Reasons) < len(misses[j].Reasons) })
	return nil, misses[:min(3, len(misses))]
}

// The words random patterns and messages are made of: shared prefixes, case variants,
// the two non-ASCII letters (?i) folds to ASCII ones, and regexp metacharacters.
var indexWords = []string{"ask", "Ask", "ASK", "a\u017fk", "as\u212a", "book", "Book a", "hello", "hell", "he", "trip", "to", "x.y", "x+y", "é", "É", "日本", "42", ""}

// randomPattern is a message pattern of one of the forms suites use.
func randomPattern(r *rand.Rand) string {
	w := func() string { return indexWords[r.IntN(len(indexWords))] }
	q := func() string { return strings.NewReplacer(".", `\.`, "+", `\+`).Replace(w()) }
	switch r.IntN(12) {
	case 0:
		return "^" + q() + "$"
	case 1:
		return "^" + q()
	case 2:
		return "(?i)^" + q()
	case 3:
		return "(?i)" + q() + ` (?P<what>\w+)`
	case 4:
		return q() + " " + q()
	case 5:
		return "(?i)" + q() + ".*" + q()
	case 6:
		return "(" + q() + "|" + q() + ")"
	case 7:
		return "(?:" + q() + "){2,}"
	case 8:
		return `\Q` + w() + `\E`
	case 9:
		return "(?i)(?:" + q() + ")+" + q()
	case 10:
		return "(?m)^" + q()
	}
	return ".*"
}

// randomScenario is a scenario document with random criteria drawn from small
// vocabularies, so that scenarios of a set share keys and requests hit several.
func randomScenario(r *rand.Rand, i int) string {
	var m []string
	if r.IntN(5) > 0 {
		m = append(m, fmt.Sprintf("message: %q", randomPattern(r)))
	}
	if r.IntN(3) == 0 {
		m = append(m, fmt.Sprintf("forwardedProps: {scenario_name: %s}", []string{"a", "b", "c"}[r.IntN(3)]))
	}
	if r.IntN(4) == 0 {
		m = append(m, fmt.Sprintf("tools: [%s]", []string{"t1", "t2"}[r.IntN(2)]))
	}
	if r.IntN(5) == 0 {
		m = append(m, fmt.Sprintf("headers: {%s: %q}", []string{"x-a", "X-B"}[r.IntN(2)], []string{"^1$", "1", ".*"}[r.IntN(3)]))
	}
	if r.IntN(6) == 0 {
		m = append(m, "agent: "+[]string{"one", "two"}[r.IntN(2)])
	}
	if r.IntN(6) == 0 {
		m = append(m, "route: "+[]string{"/agui/chat", "/other"}[r.IntN(2)])
	}
	if r.IntN(8) == 0 {
		m = append(m, "state: {mode: edit}")
	}
	return fmt.Sprintf("id: s%d\npriority: %d\nmatch: {%s}\nsteps: [{text: hi}]\n", i, r.IntN(3), strings.Join(m, ", "))
}

// randomRequest is a request made of the same vocabularies.
func randomRequest(r *rand.Rand) *Request {
	var words []string
	for range r.IntN(4) {
		words = append(words, indexWords[r.IntN(len(indexWords))])
	}
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	if r.IntN(6) > 0 {
		in.Messages = []protocol.Message{{ID: "u", Role: "user", Content: strings.Join(words, []string{" ", "", "\n"}[r.IntN(3)])}}
	}
	if r.IntN(2) == 0 {
		in.ForwardedProps = map[string]any{"scenario_name": []string{"a", "b", "c"}[r.IntN(3)], "other": json.Number("1")}
	}
	for _, name := range []string{"t1", "t2"} {
		if r.IntN(2) == 0 {
			in.Tools = append(in.Tools, protocol.Tool{Name: name})
		}
	}
	if r.IntN(4) == 0 {
		in.State = map[string]any{"mode": "edit"}
	}
	header := textproto.MIMEHeader{}
	for _, name := range []string{"X-A", "X-B"} {
		if r.IntN(2) == 0 {
			header.Set(name, []string{"1", "2", "11"}[r.IntN(3)])
		}
	}
	return &Request{Route: []string{"/agui/chat", "/other", "/"}[r.IntN(3)], Agent: []string{"", "one", "two"}[r.IntN(3)], Input: in, Header: header}
}

// TestIndexSelectsWhatALinearScanSelects is the index's property: over random sets and
// requests, selection picks the scenario a scan of every scenario in precedence order
// picks, and when none matches, the same near misses. -short tries a third of the sets.
func TestIndexSelectsWhatALinearScanSelects(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 1))
	matched, rounds := 0, 150
	if testing.Short() {
		rounds = 50
	}
	for round := range rounds {
		var list []*Scenario
		n := 1 + r.IntN(90)
		for i := range n {
			parsed, diags := Parse(fmt.Sprintf("r%d.yaml", round), []byte(randomScenario(r, i)))
			if len(diags) > 0 {
				t.Fatalf("round %d scenario %d: %v", round, i, diags)
			}
			parsed[0].fallback = r.IntN(10) == 0
			list = append(list, parsed...)
		}
		set, err := NewSet(context.Background(), Limits{}, list)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for range 200 {
			req := randomRequest(r)
			want, wantMisses := linearSelect(set, req)
			sel, misses := set.Select(req)
			var got *Scenario
			if sel != nil {
				got = sel.Scenario
				matched++
			}
			if got != want || !reflect.DeepEqual(misses, wantMisses) {
				t.Fatalf("round %d: request %+v (message %q, headers %v): the index selects %v (misses %v), a scan %v (misses %v)",
					round, req, lastUserText(req), req.Header, scenarioID(got), misses, scenarioID(want), wantMisses)
			}
		}
	}
	if matched < 5000*rounds/150 {
		t.Errorf("only %d of %d random requests matched a scenario: the property says too little", matched, 200*rounds)
	}
}

func lastUserText(req *Request) string {
	msg, _ := req.Input.LastUserMessage()
	return msg.Text()
}

func scenarioID(sc *Scenario) string {
	if sc == nil {
		return "none"
	}
	return sc.ID
}

// TestIndexFilesMostScenariosUnderKeys checks that a recorded-style suite is filed: a
// run tries a handful of scenarios, not all of them.
func TestIndexFilesMostScenariosUnderKeys(t *testing.T) {
	var docs []string
	for i := range 1000 {
		if i%2 == 0 {
			docs = append(docs, fmt.Sprintf("id: rec%d\nmatch: {message: '^Please plan trip number %d to Lisbon$'}\nsteps: [{text: hi}]\n", i, i))
		} else {
			docs = append(docs, fmt.Sprintf("id: hand%d\nmatch: {message: '(?i)book a (?P<what>\\w+) to (?P<city>\\w+) ref%dz'}\nsteps: [{text: hi}]\n", i, i))
		}
	}
	set, err := loadOne(t, strings.Join(docs, "---\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Please plan trip number 998 to Lisbon", "BOOK A flight to Oslo REF999Z"} {
		req := request(t, "/agui/chat", fmt.Sprintf(`{"messages":[{"role":"user","content":%q}]}`, text))
		bits := set.index.candidates(req, text)
		tried := 0
		for _, w := range *bits {
			for ; w != 0; w &= w - 1 {
				tried++
			}
		}
		set.index.bitsets.Put(bits)
		if tried > 3 {
			t.Errorf("%q: %d scenarios are candidates of 1,000", text, tried)
		}
		if sel, _ := set.Select(req); sel == nil {
			t.Errorf("%q selects nothing", text)
		}
	}
}

// TestOnlyTwoLettersFoldOutOfASCII backs foldSpecial: under (?i), the only non-ASCII
// letters that match an ASCII one are the Kelvin sign and the long s.
func TestOnlyTwoLettersFoldOutOfASCII(t *testing.T) {
	var found []rune
	for c := rune(0); c < 0x80; c++ {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= 0x80 {
				found = append(found, f)
			}
		}
	}
	slices.Sort(found)
	found = slices.Compact(found)
	if want := []rune{'\u017f', '\u212a'}; !slices.Equal(found, want) {
		t.Errorf("non-ASCII letters folding to ASCII: %q, foldSpecial knows %q", found, want)
	}
}

func TestRequiredTrigrams(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{`(?i)Book a (?P<x>\w+) to`, []string{"boo", "ook", "ok ", "k a", " a ", " to"}},
		{`^hi$`, nil},
		{`(abc|abd)`, nil},
		{`x(?:abcd)+`, []string{"abc", "bcd"}},
		{`(?:abc)?`, nil},
		{`日本語`, nil},
	} {
		var got []string
		for _, tri := range trigramsOf(requiredLiterals(regexp.MustCompile(c.pattern))) {
			got = append(got, string([]byte{byte(tri >> 16), byte(tri >> 8), byte(tri)}))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.pattern, got, c.want)
		}
	}
}
