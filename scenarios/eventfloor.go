package scenarios

import (
	"fmt"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

// A scenario's first run is counted from its YAML before the scenario is read: the
// fewest events its steps send, which every run from the start of a conversation sends
// whatever the request. A file whose run goes past MaxRunEvents by that count alone is
// refused there, before its steps, their values and templates are built and before the
// load-time dry run plans it; past it by what only planning finds (a long text cut into
// words), the dry run refuses it.

// eventFloor counts the fewest events of a run, step by step in the order they play,
// and where the run goes past MaxRunEvents: at the first step after which the count is
// past it, the step whose check in the planner (runStep's checkSize) would fail.
type eventFloor struct {
	events int        // the fewest events sent so far
	steps  int        // the steps counted, nested ones included
	past   *yaml.Node // the step after which events went past MaxRunEvents, or nil
}

// after counts a step's events and checks the count, as the planner does after each
// step.
func (f *eventFloor) after(n *yaml.Node, events int) {
	f.events += events
	if f.past == nil && f.events > MaxRunEvents {
		f.past = n
	}
}

// list counts a list of steps. It reports false where the run may stop before the
// next step: a pause for an interrupt or a frontend tool's result, an error, a fault.
// What follows such a step plays in another run, or never; it is not counted.
func (f *eventFloor) list(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.SequenceNode {
		return true
	}
	for _, item := range n.Content {
		if !f.step(item) {
			return false
		}
	}
	return true
}

// step counts one step; it reports false where the run may stop after it. A step the
// parser will refuse counts as few events as it may (none, mostly): the count stays a
// floor.
func (f *eventFloor) step(n *yaml.Node) bool {
	kind, body := stepKindOf(n)
	if kind == "" {
		return true
	}
	f.steps++
	switch kind {
	case "text":
		f.after(n, 2+deltas(contentOf(body))) // START, its deltas, END
	case "reasoning":
		f.after(n, 4+deltas(contentOf(body))) // the span and its message: two starts, two ends
	case "tool":
		_, result := lookup(body, "result")
		if result == nil {
			f.after(n, 2) // START, END: a frontend tool, after which the run may pause
			return false
		}
		f.after(n, 3) // START, END, RESULT
	case "state", "stateDelta", "messages", "activity", "activityDelta", "custom", "raw", "toolResult":
		f.after(n, 1)
	case "event":
		f.after(n, 1)
		if _, typ := lookup(body, keyType); typ != nil && typ.Value == protocol.RunError {
			return false
		}
	case "error":
		f.after(n, 1)
		return false
	case "pause":
	case "step":
		_, children := lookup(body, keySteps)
		f.events++ // STEP_STARTED
		if !f.list(children) {
			return false
		}
		f.after(n, 1) // STEP_FINISHED, the end of the span's own turn
	case "subagent":
		_, children := lookup(body, keySteps)
		f.after(n, 1) // SUBAGENT_STARTED; the children play as steps of their own
		if !f.list(children) {
			return false
		}
		f.events++ // SUBAGENT_FINISHED, checked with the next step
	default: // interrupt, fault: the run pauses or ends there
		return false
	}
	return true
}

// stepKindOf returns the kind of a step and what the kind's key holds, or "" when the
// step does not name exactly one kind (the parser reports it).
func stepKindOf(n *yaml.Node) (string, *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return "", nil
	}
	kind, body := "", (*yaml.Node)(nil)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; lookupStepKind(k) != nil {
			if kind != "" {
				return "", nil
			}
			kind, body = k, n.Content[i+1]
		}
	}
	return kind, body
}

// lookup returns the key and value of a mapping's key, or nils.
func lookup(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// contentOf returns a text or reasoning step's content: the step's value, or its
// content key.
func contentOf(body *yaml.Node) *yaml.Node {
	if body != nil && body.Kind == yaml.MappingNode {
		_, content := lookup(body, "content")
		return content
	}
	return body
}

// deltas is the fewest deltas a streamed text sends: one for a string written out that
// is not empty, whatever the chunking; none for a template, which may render empty.
func deltas(n *yaml.Node) int {
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || n.Value == "" || strings.Contains(n.Value, "{{") {
		return 0
	}
	return 1
}

// firstRun counts the first run of a scenario document: the fewest events its steps
// send, or the events it lists. It reports false for a document with neither steps nor
// events, or both, which the parser refuses.
func firstRun(doc *yaml.Node) (f eventFloor, explicit, ok bool) {
	_, steps := lookup(doc, keySteps)
	_, events := lookup(doc, keyEvents)
	switch {
	case steps != nil && events != nil:
		return f, false, false
	case steps != nil:
		f.events = 1 // RUN_STARTED
		if f.list(steps) {
			f.events++ // RUN_FINISHED
		}
		return f, false, true
	case events != nil && events.Kind == yaml.SequenceNode:
		for _, item := range events.Content { // played as written, each one event
			if _, typ := lookup(item, keyType); typ != nil {
				f.after(item, 1)
			}
		}
		return f, true, true
	}
	return f, false, false
}

// runPastLimit reports a scenario document whose first run sends more than
// MaxRunEvents events by the count of its steps (or of its explicit events) alone,
// at the step or event that goes past the limit.
func (l *fileLoader) runPastLimit(doc *yaml.Node) (Diagnostic, bool) {
	f, explicit, ok := firstRun(doc)
	if !ok || f.past == nil {
		return Diagnostic{}, false
	}
	what := fmt.Sprintf("its %d steps, nested ones included, send at least %d events", f.steps, f.events)
	hint := "split the scenario, or pause its run with an interrupt: the next run plays the steps after it"
	if explicit {
		what = fmt.Sprintf("it lists %d events", f.events)
		hint = "split the scenario, or go on in a continuation (next): each run has its own limit"
	}
	at := l.pos(f.past)
	return Diagnostic{File: at.File, Line: at.Line, Column: at.Column,
		Message: fmt.Sprintf("the run would stream more than %d events, the limit of one run: %s", MaxRunEvents, what),
		Hint:    hint}, true
}
