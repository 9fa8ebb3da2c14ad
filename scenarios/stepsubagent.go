package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const subagentHint = "Delegates to a subagent: SUBAGENT_STARTED, the child steps, SUBAGENT_FINISHED with outcome success. " +
	"Every event of the child steps that can belong to a subagent carries the invocation's subagentRunId (and each interrupt they raise); a subagent inside another names it as parentSubagentRunId. " +
	"An error step among the child steps ends the subagent with SUBAGENT_ERROR instead of ending the run, and the run goes on after it. " +
	"Where the run pauses inside the subagent (an interrupt, or frontend tool calls that more steps follow), the subagent finishes with outcome suspended and the interrupts it raised in interruptIds, and the run that continues the conversation announces it again with the same subagentRunId. " +
	"Clients of 0.0.x get the child steps' events without the subagent events or their attribution. " +
	"The step's id names the subagentRunId."

// subagentStep delegates to a subagent: its child steps play between SUBAGENT_STARTED
// and SUBAGENT_FINISHED, every event of theirs that can belong to a subagent carries the
// invocation's subagentRunId, and an error step among them ends it with SUBAGENT_ERROR
// instead of ending the run. Where the run pauses inside it, the subagent finishes as
// suspended and the run that continues it announces it again.
type subagentStep struct {
	stepCommon
	name        *value
	description *value
	result      *value
	children    []step
}

func (l *fileLoader) subagentStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "subagent", []string{"name", "description", "result", "steps"})
	if f == nil || f["name"] == nil || f["steps"] == nil {
		l.diag.add(l.pos(n), "e.g. subagent: {name: researcher, steps: [{text: Found it.}]}", "subagent needs a name and a list of steps")
		return nil
	}
	s := &subagentStep{stepCommon: c, name: l.text(f["name"], "a subagent's name")}
	if v := f["description"]; v != nil {
		s.description = l.text(v, "a subagent's description")
	}
	if v := f["result"]; v != nil {
		s.result = l.valueFromNode(v)
	}
	l.subagents++
	s.children = l.steps(f["steps"])
	l.subagents--
	if len(s.children) == 0 && f["steps"].Kind == yaml.SequenceNode && len(f["steps"].Content) == 0 {
		l.diag.add(l.pos(f["steps"]), "", "a subagent needs at least one step")
	}
	return s
}

// invocation is one subagent invocation the run is inside: the step, its id, the
// invocation that spawned it, and the metadata of the step's own events.
type invocation struct {
	step     *subagentStep
	runID    string
	parent   string
	metadata any
}

// emit announces the invocation; whoever plays the step plays its children next
// (p.entered), inside it, and then ends it (endSubagent).
func (s *subagentStep) emit(p *planner) error {
	inv := &invocation{step: s, runID: p.stepID(&s.stepCommon, "sub"), parent: p.subagent(), metadata: p.metadata}
	if err := p.announce(inv); err != nil {
		return err
	}
	p.entered = inv
	return nil
}

// announce sends the SUBAGENT_STARTED of an invocation, when it begins or when a run
// continues it, and attributes what follows to it.
func (p *planner) announce(inv *invocation) error {
	name, err := p.renderText(inv.step.name)
	if err != nil {
		return err
	}
	ev := protocol.NewEvent(protocol.SubagentStarted, "subagentRunId", inv.runID, "name", name)
	if inv.step.description != nil {
		d, err := p.renderText(inv.step.description)
		if err != nil {
			return err
		}
		ev = ev.With("description", d)
	}
	if inv.parent != "" {
		ev = ev.With("parentSubagentRunId", inv.parent)
	}
	p.emitAs(inv, ev)
	p.subagents = append(p.subagents, inv.runID)
	return nil
}

// endSubagent ends the innermost invocation: with SUBAGENT_FINISHED and its outcome,
// unless an error step ended it (SUBAGENT_ERROR, sent already).
func (p *planner) endSubagent(inv *invocation, outcome map[string]any) error {
	p.subagents = p.subagents[:len(p.subagents)-1]
	if p.subagentFailed {
		p.subagentFailed = false
		return nil
	}
	ev := protocol.NewEvent(protocol.SubagentFinished, "subagentRunId", inv.runID)
	if inv.step.result != nil && outcome["type"] == "success" {
		result, err := inv.step.result.render(p.r)
		if err != nil {
			return atStep(inv.step.at, err)
		}
		ev = ev.With("result", result)
	}
	p.emitAs(inv, ev.With("outcome", outcome))
	return nil
}

// emitAs emits an event of a subagent step's own, outside the step's turn: with its
// metadata and under its id, for breakpoints.
func (p *planner) emitAs(inv *invocation, ev protocol.Event) {
	md, name := p.metadata, p.stepName
	p.metadata = inv.metadata
	if inv.step.localID != "" {
		p.stepName = inv.step.localID
	}
	p.emit(ev)
	p.metadata, p.stepName = md, name
}

// subagent returns the id of the innermost invocation the run is inside, or "".
func (p *planner) subagent() string {
	if len(p.subagents) == 0 {
		return ""
	}
	return p.subagents[len(p.subagents)-1]
}

// completed is the outcome of a subagent that did its work.
func completed() map[string]any { return map[string]any{"type": "success"} }

// suspend finishes, innermost first, the invocations a pausing run is inside, as
// suspended with the interrupts each raised itself; the run that continues them
// announces them again (resumeSubagents).
func (p *planner) suspend(stack []frame) error {
	for i := len(stack) - 1; i >= 0; i-- {
		inv := stack[i].subagent
		if inv == nil {
			continue
		}
		ids := []any{}
		for _, pi := range p.interrupts {
			if pi.Wire["subagentRunId"] == inv.runID {
				ids = append(ids, pi.ID)
			}
		}
		if err := p.endSubagent(inv, map[string]any{"type": "suspended", "interruptIds": ids}); err != nil {
			return err
		}
	}
	return nil
}

// resumeSubagents announces again, outermost first, the invocations a continued run
// resumes inside.
func (p *planner) resumeSubagents(stack []frame) error {
	for _, f := range stack {
		if f.subagent != nil {
			if err := p.announce(f.subagent); err != nil {
				return err
			}
		}
	}
	return nil
}
