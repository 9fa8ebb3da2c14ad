package scenarios

import (
	"encoding/json"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
)

// Answers are one way of answering everything a paused run waits for, as a client
// would: an answer per pending interrupt and a result per pending frontend tool call, in
// the order of the cursor's Interrupts and ToolCalls. `agui-mock verify` sends them to
// a real agent and to the scenario alike.
type Answers struct {
	Resume  []Answer `json:"resume,omitempty"`
	Results []string `json:"results,omitempty"`
}

// Answer is how one interrupt is answered.
type Answer struct {
	Status  string `json:"status"`
	Payload any    `json:"payload,omitempty"`
}

// Branches lists answers that take the paused conversation down each of its branches: for
// a scenario of steps, the plain answer (every interrupt resolved, with the smallest
// payload its responseSchema takes; every tool result empty) and, for each case of each pending item, the plain answer
// with that item answered as the case asks; for a recording, the answers each recorded
// continuation was recorded with, but for one the client stopped: no live run stops
// where that one did. An answer is made to meet its case's conditions (a
// tool result's pattern gets a text it matches), so that playing it chooses the case by
// the usual rules rather than by force; the same answers are listed once.
func (c *Cursor) Branches() []Answers {
	plain := Answers{Resume: make([]Answer, len(c.Interrupts)), Results: make([]string, len(c.ToolCalls))}
	for i, pi := range c.Interrupts {
		plain.Resume[i] = Answer{Status: protocol.ResumeResolved, Payload: pi.samplePayload()}
	}
	var all []Answers
	add := func(change func(a *Answers)) {
		a := Answers{Resume: slices.Clone(plain.Resume), Results: slices.Clone(plain.Results)}
		change(&a)
		if !slices.ContainsFunc(all, func(w Answers) bool { return sameAnswers(w, a) }) {
			all = append(all, a)
		}
	}
	if c.node != nil {
		for _, b := range c.node.next {
			if b.run.stopped != "" {
				continue
			}
			add(func(a *Answers) {
				for i, bc := range b.resume {
					if i < len(a.Resume) {
						a.Resume[i] = bc.answer(c.Interrupts[i])
					}
				}
				for i, re := range b.toolResults {
					if i < len(a.Results) {
						a.Results[i] = sampleMatch(re)
					}
				}
			})
		}
		return all
	}
	add(func(*Answers) {})
	for i, pi := range c.Interrupts {
		if pi.def == nil {
			continue
		}
		for _, bc := range pi.def.cases {
			add(func(a *Answers) { a.Resume[i] = bc.answer(pi) })
		}
	}
	for i, tc := range c.ToolCalls {
		if tc.def == nil {
			continue
		}
		for _, bc := range tc.def.cases {
			add(func(a *Answers) { a.Results[i] = sampleMatch(bc.content) })
		}
	}
	return all
}

// answer is an answer to the interrupt that meets the case: its status (resolved when
// it names none) and the payload it asks for, or else the smallest one the interrupt's
// responseSchema takes.
func (bc branchCase) answer(pi PendingInterrupt) Answer {
	a := Answer{Status: bc.status, Payload: bc.payload}
	if a.Status == "" {
		a.Status = protocol.ResumeResolved
	}
	if a.Payload == nil && a.Status == protocol.ResumeResolved {
		a.Payload = pi.samplePayload()
	}
	return a
}

// samplePayload is the smallest payload the interrupt's responseSchema takes: each
// required member of an object with a value of its type. A schema it cannot satisfy
// that simply gets nil, no payload.
func (pi PendingInterrupt) samplePayload() any {
	if pi.schema == nil {
		return nil
	}
	v := sampleOf(pi.Wire["responseSchema"])
	if pi.schema.Validate(v) != nil {
		return nil
	}
	return v
}

// sampleOf is a value of the type a JSON Schema names: its first enum value or const,
// an object with its required members, or the zero value of the type.
func sampleOf(schema any) any {
	s, _ := schema.(map[string]any)
	if c, ok := s["const"]; ok {
		return c
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := s["type"].(string)
	switch typ {
	case "string":
		return ""
	case "boolean":
		return false
	case "integer", "number":
		return json.Number("0")
	case "array":
		return []any{}
	case "null":
		return nil
	}
	obj := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required, _ := s["required"].([]any)
	for _, name := range required {
		if key, ok := name.(string); ok {
			obj[key] = sampleOf(props[key])
		}
	}
	return obj
}

func sameAnswers(a, b Answers) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// sampleMatch returns a short text the pattern matches: its literal parts, the first
// choice of each alternative, the least repetition. A pattern it cannot satisfy (a
// backreference-like trick, a word boundary between literals) gets the empty text; nil
// matches anything, and gets it too.
func sampleMatch(re *regexp.Regexp) string {
	if re == nil {
		return ""
	}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	writeSample(&b, tree.Simplify())
	if text := b.String(); re.MatchString(text) {
		return text
	}
	return ""
}

// writeSample writes the shortest text the simplified pattern tree re matches, taking
// the first alternative of every choice.
func writeSample(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) > 0 {
			b.WriteRune(re.Rune[0])
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture, syntax.OpPlus:
		writeSample(b, re.Sub[0])
	case syntax.OpRepeat:
		for range re.Min {
			writeSample(b, re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			writeSample(b, sub)
		}
	case syntax.OpAlternate:
		writeSample(b, re.Sub[0])
	}
}
