package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const spanHint = "Wraps child steps in STEP_STARTED and STEP_FINISHED."

// spanStep, a step of kind step, wraps its child steps in STEP_STARTED and
// STEP_FINISHED.
type spanStep struct {
	stepCommon
	name     string
	children []step
}

func (l *fileLoader) spanStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "step", []string{"name", "steps"})
	if f == nil || f["name"] == nil || f["steps"] == nil {
		l.diag.add(l.pos(n), "", "step needs a name and a list of steps")
		return nil
	}
	s := &spanStep{stepCommon: c, name: l.name(f["name"], "a step name"), children: l.steps(f["steps"])}
	l.checkSpanChildren(s.children)
	return s
}

// checkSpanChildren refuses what a step span cannot hold, at any depth of the subagents
// inside it (a span checks its own): the run pauses at an interrupt, and after a
// frontend tool call that more steps follow, and a span cannot pause.
func (l *fileLoader) checkSpanChildren(children []step) {
	for i, child := range children {
		switch st := child.(type) {
		case *interruptStep:
			l.diag.add(child.common().at, "end the span before the interrupt", "an interrupt cannot be inside a step span: the run ends at it")
		case *subagentStep:
			l.checkSpanChildren(st.children)
		}
		if tool := trailingFrontendTool(child); tool != nil && i+1 < len(children) && !continuesTurn(children[i+1]) {
			l.diag.add(tool.at, "end the span with the tool call", "a frontend tool call cannot be followed by more steps inside a step span: the run ends after it")
		}
	}
}

// trailingFrontendTool returns the frontend tool step a step ends with: the step itself,
// or the last step of a span, at any depth. It returns nil for any other step.
func trailingFrontendTool(s step) *toolStep {
	switch st := s.(type) {
	case *toolStep:
		if st.result == nil {
			return st
		}
	case *spanStep:
		if len(st.children) > 0 {
			return trailingFrontendTool(st.children[len(st.children)-1])
		}
	case *subagentStep:
		if len(st.children) > 0 {
			return trailingFrontendTool(st.children[len(st.children)-1])
		}
	}
	return nil
}

// continuesTurn reports whether a step after a frontend tool call belongs to its turn:
// another frontend tool call (a model asks for parallel calls in one turn) or an
// interrupt about them.
func continuesTurn(s step) bool {
	switch st := s.(type) {
	case *toolStep:
		return st.result == nil
	case *interruptStep:
		return true
	}
	return false
}

func (s *spanStep) emit(p *planner) error {
	p.emit(protocol.NewEvent(protocol.StepStarted, "stepName", s.name))
	if err := p.runSteps(s.children); err != nil {
		return err
	}
	if !p.terminated {
		p.emit(protocol.NewEvent(protocol.StepFinished, "stepName", s.name))
	}
	return nil
}
