package scenarios

import (
	"encoding/json"
	"fmt"
	"net/textproto"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agui-mock/agui-mock/internal/secret"
	"github.com/agui-mock/agui-mock/protocol"
)

// Match says which requests a scenario answers. Every criterion given must hold.
type Match struct {
	Routes         []string
	Agents         []string                  // of the CopilotKit runtime's routes: the run's agent is one of them
	Message        *regexp.Regexp            // searched in the last user message's text
	prefix         literalPrefix             // what a matching text must start with, to reject cheaply
	literals       []string                  // what a matching text must contain, folded (requiredLiterals), to reject cheaply
	trigrams       []uint32                  // of the literals, each once: the keys the index may file the scenario under
	System         *regexp.Regexp            // searched in the latest system or developer message's text
	ForwardedProps map[string]any            // a subset the request's forwardedProps must contain
	State          any                       // a subset the request's state must contain
	Tools          []string                  // tools the client must offer
	Headers        map[string]*regexp.Regexp // by name in lower case
	headerKeys     map[string]string         // each header's name in the request's canonical form, by name in lower case
	Context        []ContextPattern          // each matched by some item of the request's context
	Conversation   []MessagePattern          // the request's messages, one for one
}

// ContextPattern is what one item of the request's context must look like: its
// description and its value each matched by a pattern, when given.
type ContextPattern struct {
	Description, Value *regexp.Regexp
}

// matches reports whether the context item matches the patterns given.
func (c ContextPattern) matches(item protocol.Context) bool {
	return (c.Description == nil || c.Description.MatchString(item.Description)) && (c.Value == nil || c.Value.MatchString(item.Value))
}

// String writes the patterns as a match says them.
func (c ContextPattern) String() string {
	var parts []string
	if c.Description != nil {
		parts = append(parts, "description /"+c.Description.String()+"/")
	}
	if c.Value != nil {
		parts = append(parts, "value /"+c.Value.String()+"/")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// matchedBy reports whether some item of the request's context matches.
func (c ContextPattern) matchedBy(req *Request) bool {
	return slices.ContainsFunc(req.Input.Context, c.matches)
}

// systemText returns the text of the request's latest system or developer message, and
// whether it has one.
func systemText(req *Request) (string, bool) {
	msgs := req.Input.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "system" || msgs[i].Role == "developer" {
			return msgs[i].Text(), true
		}
	}
	return "", false
}

// systemMatches reports whether the request has a system or developer message and the
// latest one's text matches.
func systemMatches(req *Request, re *regexp.Regexp) bool {
	text, ok := systemText(req)
	return ok && re.MatchString(text)
}

// literalPrefix is the literal text a pattern anchored at the start requires, found
// from its syntax: checking it costs a few byte comparisons where running the pattern
// costs much more, which matters when a thousand scenarios are tried.
type literalPrefix struct {
	text string
	fold bool // case-insensitive; only ASCII prefixes are kept
}

func prefixOf(re *regexp.Regexp) literalPrefix {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return literalPrefix{}
	}
	tree = tree.Simplify()
	if tree.Op != syntax.OpConcat || len(tree.Sub) < 2 || tree.Sub[0].Op != syntax.OpBeginText || tree.Sub[1].Op != syntax.OpLiteral {
		return literalPrefix{}
	}
	lit := tree.Sub[1]
	p := literalPrefix{text: string(lit.Rune), fold: lit.Flags&syntax.FoldCase != 0}
	for _, r := range lit.Rune {
		if r >= utf8.RuneSelf {
			return literalPrefix{} // folding non-ASCII text changes its length
		}
	}
	return p
}

// admits reports whether text may match: it starts with the prefix. Under (?i) a
// non-ASCII letter may match an ASCII one (the Kelvin sign k, the long s s), so a text
// with non-ASCII bytes where the prefix would be is left to the pattern.
func (p literalPrefix) admits(text string) bool {
	if p.fold && !isASCII(text[:min(len(text), 3*len(p.text))]) {
		return true
	}
	if len(text) < len(p.text) {
		return p.text == ""
	}
	if p.fold {
		return strings.EqualFold(text[:len(p.text)], p.text)
	}
	return text[:len(p.text)] == p.text
}

// Selection is the scenario chosen for a request and what its pattern captured.
type Selection struct {
	Scenario *Scenario
	Captures map[string]string
}

// Candidate is a scenario that nearly matched a request, and why it did not.
type Candidate struct {
	ID      string   `json:"id"`
	Source  string   `json:"source"`
	Reasons []string `json:"reasons"`
}

// Select returns the first scenario, in precedence order, that matches the request. When
// none does, it returns the nearest candidates instead.
func (s *Set) Select(req *Request) (*Selection, []Candidate) {
	msg, _ := req.Input.LastUserMessage()
	text := msg.Text()
	if sc := s.index.first(s.scenarios, req, text); sc != nil {
		return &Selection{Scenario: sc, Captures: sc.Match.captures(text)}, nil
	}
	// no match: now it is worth saying why each missed
	return nil, s.nearest(req, func(*Scenario) bool { return true })
}

// nearest returns up to three of the scenarios keep admits, those that missed the
// request by the fewest reasons first, with the reasons.
func (s *Set) nearest(req *Request, keep func(*Scenario) bool) []Candidate {
	misses := []Candidate{}
	for _, sc := range s.scenarios {
		if !keep(sc) {
			continue
		}
		_, reasons := sc.Match.test(req)
		misses = append(misses, Candidate{ID: sc.ID, Source: sc.Source.String(), Reasons: reasons})
	}
	sort.SliceStable(misses, func(i, j int) bool { return len(misses[i].Reasons) < len(misses[j].Reasons) })
	return misses[:min(3, len(misses))]
}

// Force selects the scenario with the given id for a request, whatever it matches; its
// captures are those of its message pattern when that matches.
func (s *Set) Force(id string, req *Request) *Selection {
	sc := s.byID[id]
	if sc == nil {
		return nil
	}
	captures, _ := sc.Match.test(req)
	return &Selection{Scenario: sc, Captures: captures}
}

// contextHolds reports whether each pattern is matched by some item of the request's
// context.
func contextHolds(want []ContextPattern, req *Request) bool {
	for _, c := range want {
		if !c.matchedBy(req) {
			return false
		}
	}
	return true
}

// contextMiss says which patterns no item of the request's context matches.
func contextMiss(want []ContextPattern, req *Request) []string {
	var reasons []string
	for _, c := range want {
		if !c.matchedBy(req) {
			reasons = append(reasons, fmt.Sprintf("no context item matches %s (the request has %s)", c, describeContext(req.Input.Context)))
		}
	}
	return reasons
}

// describeContext names the descriptions of a request's context items, for a miss.
func describeContext(items []protocol.Context) string {
	if len(items) == 0 {
		return "no context"
	}
	names := make([]string, len(items))
	for i, c := range items {
		names[i] = strconv.Quote(clip(c.Description, 40))
	}
	return fmt.Sprintf("%d: %s", len(items), clip(strings.Join(names, ", "), 160))
}

// boolCount is 1 for a criterion that is given, 0 otherwise.
func boolCount(given bool) int {
	if given {
		return 1
	}
	return 0
}

// offersTool reports whether the client offers the named tool.
func offersTool(req *Request, name string) bool {
	return slices.ContainsFunc(req.Input.Tools, func(t protocol.Tool) bool { return t.Name == name })
}

// quoteHeader shows a request's header for a miss: absent, its value quoted and clipped
// as other values are, or, for a header that holds a credential, its length alone.
func quoteHeader(req *Request, name string) string {
	values := req.Header.Values(name)
	switch {
	case len(values) == 0:
		return "(absent)"
	case secret.InHeader(name, values[0]):
		return fmt.Sprintf("(%d bytes, not shown: it holds a credential)", len(values[0]))
	}
	return strconv.Quote(clip(values[0], 80))
}

// headerMatches reports whether the request has the header and its first value matches.
// The header is looked up by the canonical name the match keeps, which costs no
// allocation where canonicalizing the name each time would.
func (m *Match) headerMatches(req *Request, name string, re *regexp.Regexp) bool {
	key, ok := m.headerKeys[name]
	if !ok {
		key = textproto.CanonicalMIMEHeaderKey(name)
	}
	values := req.Header[key]
	return len(values) > 0 && re.MatchString(values[0])
}

// Criteria counts the criteria given; more specific scenarios win ties of priority.
func (m Match) Criteria() int {
	n := 0
	for i := range criteria {
		n += criteria[i].count(&m)
	}
	return n
}

// holds reports whether every criterion holds; it stops at the first that fails.
func (m *Match) holds(req *Request, text string) bool {
	for i := range criteria {
		if !criteria[i].holds(m, req, text) {
			return false
		}
	}
	return true
}

// test checks every criterion and returns the captures, or the reasons it fails.
func (m *Match) test(req *Request) (map[string]string, []string) {
	msg, _ := req.Input.LastUserMessage()
	text := msg.Text()
	var reasons []string
	for i := range criteria {
		reasons = append(reasons, criteria[i].explainMiss(m, req, text)...)
	}
	return m.captures(text), reasons
}

// CriterionCheck is one kind of criterion a scenario's match gives, checked against a
// request: what it requires, whether it holds and, when it does not, why.
type CriterionCheck struct {
	Criterion string   `json:"criterion"`
	Want      string   `json:"want"`
	Held      bool     `json:"held"`
	Reasons   []string `json:"reasons,omitempty"`
}

// Explain checks each kind of criterion the match gives against a request, in the
// order misses are explained; a match that gives none answers every request.
func (m *Match) Explain(req *Request) []CriterionCheck {
	msg, _ := req.Input.LastUserMessage()
	text := msg.Text()
	checks := []CriterionCheck{}
	for i := range criteria {
		c := &criteria[i]
		if c.count(m) == 0 {
			continue
		}
		checks = append(checks, c.check(m, req, text))
	}
	return checks
}

// check checks the criteria of this kind a match gives against a request.
func (c *criterion) check(m *Match, req *Request, text string) CriterionCheck {
	return CriterionCheck{Criterion: c.name, Want: c.describe(m), Held: c.holds(m, req, text), Reasons: c.explainMiss(m, req, text)}
}

// ExplainHeaders checks the header criteria alone, as Explain does; false when the match
// names no header. A run's record keeps this check rather than the request's headers,
// which may hold credentials, to explain the match again later.
func (m *Match) ExplainHeaders(req *Request) (CriterionCheck, bool) {
	if len(m.Headers) == 0 {
		return CriterionCheck{}, false
	}
	for i := range criteria {
		if criteria[i].name == "headers" {
			return criteria[i].check(m, req, ""), true
		}
	}
	panic("no criterion of headers")
}

// captures returns the groups of the message pattern, by number and by name.
func (m *Match) captures(text string) map[string]string {
	if m.Message == nil || m.Message.NumSubexp() == 0 { // no groups: no need to match again
		return nil
	}
	found := m.Message.FindStringSubmatch(text)
	if found == nil {
		return nil
	}
	captures := map[string]string{}
	for i, name := range m.Message.SubexpNames() {
		if i > 0 {
			captures[strconv.Itoa(i)] = found[i]
			if name != "" {
				captures[name] = found[i]
			}
		}
	}
	return captures
}

// subset reports whether want is contained in got: objects by their members, arrays by
// each wanted item being contained in some item, scalars by equality.
func subset(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, has := g[k]
			if !has || !subset(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		for _, wv := range w {
			if !slices.ContainsFunc(g, func(gv any) bool { return subset(gv, wv) }) {
				return false
			}
		}
		return true
	case json.Number:
		wf, _ := w.Float64()
		switch g := got.(type) {
		case json.Number:
			gf, err := g.Float64()
			return err == nil && gf == wf
		case float64:
			return g == wf
		}
		return false
	}
	return got == want
}

func show(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return clip(string(b), 80)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
