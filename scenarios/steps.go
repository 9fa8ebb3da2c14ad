package scenarios

import (
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// step is one entry of a scenario's steps list.
type step interface {
	emit(p *planner) error
	common() *stepCommon
}

// stepCommon holds the options every step kind takes.
type stepCommon struct {
	at              pos
	localID         string         // names the id the step generates, for {{ id "name" }}
	delay           *time.Duration // replaces the gap before the step
	tokensPerSecond *float64
	chunk           string // how streamed text is split: word (default), sentence or none
	metadata        *value // attached to every event the step writes itself
}

func (c *stepCommon) common() *stepCommon { return c }

// stepParser reads the body of a step, what its kind's key holds, into the step; it
// reports a problem and returns nil when the body is not one.
type stepParser func(l *fileLoader, c stepCommon, body *yaml.Node) step

// stepKind is one entry of the table of step kinds.
type stepKind struct {
	name   string     // the key a scenario writes the step under
	called string     // what the schema calls the kind, when its name alone would read oddly
	hint   string     // what the step does, in a line: the schema's description of its key
	parse  stepParser // never nil: TestEveryStepKindParsesItsMinimalStep
}

// stepKinds is the table of step kinds, in the order of their documentation: the parser
// dispatches through it, and `go generate ./scenarios` writes from it the schema's step
// members, its branches and their messages (internal/cmd/genschema). init fills it,
// since the kinds that hold steps read them through the table.
var stepKinds []stepKind

func init() {
	stepKinds = []stepKind{
		{name: "text", hint: textHint, parse: (*fileLoader).textStep},
		{name: "reasoning", hint: reasoningHint, parse: (*fileLoader).reasoningStep},
		{name: "tool", hint: toolHint, parse: (*fileLoader).toolStep},
		{name: "state", hint: stateHint, parse: (*fileLoader).stateStep},
		{name: "stateDelta", hint: stateDeltaHint, parse: (*fileLoader).stateDeltaStep},
		{name: "messages", hint: messagesHint, parse: (*fileLoader).messagesStep},
		{name: "activity", hint: activityHint, parse: (*fileLoader).activityStep},
		{name: "activityDelta", hint: activityDeltaHint, parse: (*fileLoader).activityDeltaStep},
		{name: "step", called: "step span", hint: spanHint, parse: (*fileLoader).spanStep},
		{name: "subagent", hint: subagentHint, parse: (*fileLoader).subagentStep},
		{name: "custom", hint: customHint, parse: (*fileLoader).customStep},
		{name: "raw", hint: rawHint, parse: (*fileLoader).rawStep},
		{name: "error", hint: errorHint, parse: (*fileLoader).errorStep},
		{name: "pause", hint: pauseHint, parse: (*fileLoader).pauseStep},
		{name: "event", hint: eventHint, parse: (*fileLoader).eventStepOfList},
		{name: "interrupt", hint: interruptHint, parse: (*fileLoader).interruptStep},
		{name: "toolResult", hint: toolResultHint, parse: (*fileLoader).toolResultStep},
		{name: "fault", hint: faultHint, parse: (*fileLoader).faultStep},
	}
}

// templated ends the hint of a kind whose strings are templates.
const templated = " May contain Go text/template expressions such as {{ .message }} or {{ Name }}; quote a value that starts with {{."

// commonKeys are the keys every step takes besides its kind, in the order of their
// documentation.
var commonKeys = []string{"id", "delay", "tokensPerSecond", "chunk", "metadata"}

// StepKind describes a kind of step as the scenario schema shows it.
type StepKind struct {
	Name  string // the key a scenario writes the step under
	Title string // the title of the schema's branch for the kind, e.g. "text step"
	Hint  string // what the step does: the schema's description of its key
}

// StepKindTable returns the kinds of step, in the order of their documentation.
func StepKindTable() []StepKind {
	out := make([]StepKind, len(stepKinds))
	for i, k := range stepKinds {
		called := k.called
		if called == "" {
			called = k.name
		}
		out[i] = StepKind{Name: k.name, Title: called + " step", Hint: k.hint}
	}
	return out
}

// StepOptions returns the keys every step takes besides its kind, in the order of
// their documentation.
func StepOptions() []string { return slices.Clone(commonKeys) }

// stepKindNames lists the names of the step kinds, in the table's order.
func stepKindNames() []string {
	names := make([]string, len(stepKinds))
	for i, k := range stepKinds {
		names[i] = k.name
	}
	return names
}

// lookupStepKind returns the table's entry for a kind's name, or nil.
func lookupStepKind(name string) *stepKind {
	for i := range stepKinds {
		if stepKinds[i].name == name {
			return &stepKinds[i]
		}
	}
	return nil
}

func (l *fileLoader) steps(n *yaml.Node) []step {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "steps must be a list")
		return nil
	}
	var list []step
	for _, item := range n.Content {
		if s := l.step(item); s != nil {
			list = append(list, s)
		}
	}
	for i, s := range list[:max(len(list)-1, 0)] {
		switch s := s.(type) {
		case *errorStep:
			hint := "RUN_ERROR ends the run"
			if l.subagents > 0 {
				hint = "inside a subagent, SUBAGENT_ERROR ends the subagent"
			}
			l.diag.add(list[i+1].common().at, hint, "no step may follow an error step")
		case *faultStep:
			if s.ends() { // a fault that rewrites the run's end or adds an event lets the run go on
				l.diag.add(list[i+1].common().at, "the "+s.fault.Kind+" fault ends the stream", "no step may follow a fault step")
			}
		}
	}
	return list
}

func (l *fileLoader) step(n *yaml.Node) step {
	names := stepKindNames()
	f := l.fields(n, "a step", append(names, commonKeys...))
	if f == nil {
		return nil
	}
	var kinds []string
	for _, k := range names {
		if f[k] != nil {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 && len(f) < len(n.Content)/2 {
		return nil // an unknown key, already reported, was probably the kind misspelled
	}
	if len(kinds) != 1 {
		l.diag.add(l.pos(n), "step kinds: "+strings.Join(names, ", "), "a step needs exactly one kind, found %d (%s)", len(kinds), strings.Join(kinds, ", "))
		return nil
	}
	c := stepCommon{at: l.pos(n)}
	if v := f["id"]; v != nil {
		c.localID = l.name(v, "a step id")
		if c.localID != "" && !slices.Contains(l.stepIDs, c.localID) {
			l.stepIDs = append(l.stepIDs, c.localID)
		}
	}
	if v := f["delay"]; v != nil {
		d := l.duration(v)
		c.delay = &d
	}
	if v := f["tokensPerSecond"]; v != nil {
		c.tokensPerSecond = l.tokensPerSecond(v)
	}
	if v := f["chunk"]; v != nil {
		c.chunk = l.str(v)
		if !slices.Contains([]string{"word", "sentence", "none"}, c.chunk) {
			l.diag.add(l.pos(v), "", "chunk is word, sentence or none, got %q", c.chunk)
		}
	}
	if v := f["metadata"]; v != nil {
		c.metadata = l.metadata(v, kinds[0])
	}
	return lookupStepKind(kinds[0]).parse(l, c, f[kinds[0]])
}

// metadata reads a step's metadata: an object, which every event the step writes
// itself carries (a step kind that writes none has nothing to carry it).
func (l *fileLoader) metadata(n *yaml.Node, kind string) *value {
	if kind == "pause" || kind == "fault" {
		l.diag.add(l.pos(n), "metadata rides on the events a step sends", "a %s step sends no event to carry metadata", kind)
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
	case yaml.ScalarNode:
		l.diag.add(l.pos(n), "e.g. metadata: {traceId: t-1}; templates go in its values", "metadata must be a mapping, got %q", n.Value)
		return nil
	default:
		l.diag.add(l.pos(n), "e.g. metadata: {traceId: t-1}", "metadata must be a mapping, got %s", nodeKind(n))
		return nil
	}
	return l.valueFromNode(n)
}

// optionalValue reads a node that may be absent, which means JSON null.
func (l *fileLoader) optionalValue(n *yaml.Node) *value {
	if n == nil {
		return &value{literal: nil}
	}
	return l.valueFromNode(n)
}

// renderText renders a value to text: strings as they are, anything else as JSON, and
// a whole template that reads a path the request lacks as nothing.
func (p *planner) renderText(v *value) (string, error) {
	x, err := v.render(p.r)
	if err != nil {
		return "", err
	}
	if x == nil && v.kind == wholeValue {
		return "", nil
	}
	return jsonText(x)
}
