package scenarios

// Playing a scenario: its steps or its explicit events, frame by frame, into the
// planner's timed events.

import (
	"errors"
	"slices"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// build plans a scenario of either form. The two forms are separate functions, so that
// planning one does not take the stack the other needs.
func (p *planner) build(s *Scenario, in *protocol.RunAgentInput, start Start) error {
	if s.run != nil {
		return p.playExplicit(s.run, in, start)
	}
	return p.playSteps(s, in, start)
}

// stop ends a stopped run where its events end: the stream is held open, as a stall
// fault holds it, until the client goes away or the run is cancelled. why is the run's
// stopped reason, which the plan keeps.
func (p *planner) stop(why string) {
	p.stopped = why
	p.events = append(p.events, Timed{At: p.at, Fault: &Fault{Kind: FaultStall}})
	if p.trace {
		p.origins = append(p.origins, p.current)
	}
	p.terminated = true
}

// playSteps plans a scenario of steps, and ends its run as they leave it: finished,
// or waiting for interrupts or tool results.
func (p *planner) playSteps(s *Scenario, in *protocol.RunAgentInput, start Start) error {
	p.wait(p.timing.FirstEvent)
	// A scenario of steps is the mock speaking for itself: it declares the version both
	// sides speak. The explicit form plays its RUN_STARTED as written.
	threadID, runID := any(in.ThreadID), any(in.RunID) // boxed once for both events
	p.emit(protocol.PeerFor(in.ProtocolVersion).Declare(protocol.NewEvent(protocol.RunStarted, "threadId", threadID, "runId", runID)))
	stack := []frame{{steps: s.steps}}
	if start.Resume != nil {
		stack = p.continuation(start, in)
		if err := p.resumeSubagents(stack); err != nil {
			return err
		}
	}
	if err := p.runFrames(stack); err != nil || p.terminated {
		if err == nil {
			err = p.endingUnsent()
		}
		return err
	}
	if err := p.endingApplies(); err != nil {
		return err
	}
	p.wait(p.timing.StepGap)
	finished := protocol.NewEvent(protocol.RunFinished, "threadId", threadID, "runId", runID)
	switch {
	case len(p.interrupts) > 0 && p.dialect == DialectLangGraph:
		// the on_interrupt events raised them; the run finishes as any other
	case len(p.interrupts) > 0:
		wires := make([]any, len(p.interrupts))
		for i, pi := range p.interrupts {
			wires[i] = pi.Wire
		}
		finished = finished.With("outcome", map[string]any{"type": "interrupt", "interrupts": wires})
	case len(p.pendingTools) > 0:
		ids := make([]any, len(p.pendingTools))
		for i, tc := range p.pendingTools {
			ids[i] = tc.ID
		}
		finished = finished.With("outcome", map[string]any{"type": "success", "pendingToolCallIds": ids})
	}
	if s.result != nil && p.next == nil {
		result, err := s.result.render(p.r)
		if err != nil {
			return err
		}
		finished = finished.With("result", result)
	}
	p.emit(p.withUsage(finished))
	return nil
}

// playExplicit plays a run of the explicit form: the root run, or the continuation the
// answers choose. When continuations follow, the run's end says what it waits for.
func (p *planner) playExplicit(root *eventsRun, in *protocol.RunAgentInput, start Start) error {
	run := root
	if c := start.Resume; c != nil {
		var err error
		if run, err = p.chooseContinuation(c, start, in); err != nil {
			return err
		}
	}
	for i := range run.events {
		if d := run.events[i].delay; d != nil {
			p.wait(*d)
		}
		p.current = run.events[i].at
		err := run.events[i].emit(p)
		if err == nil {
			err = p.checkSize(0)
		}
		if err != nil {
			return atStep(run.events[i].at, err)
		}
	}
	switch {
	case run.stopped != "":
		p.stop(run.stopped)
	case len(run.next) > 0:
		return p.pauseExplicit(run)
	}
	return nil
}

// runFrames plays the frames from the top of the stack down until the steps run out, the
// run ends with an error, or it pauses; a pause leaves the rest in p.next.
func (p *planner) runFrames(stack []frame) error {
	first := true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next >= len(top.steps) {
			if inv := top.subagent; inv != nil {
				if err := p.endSubagent(inv, completed()); err != nil {
					return err
				}
			}
			stack = stack[:len(stack)-1]
			continue
		}
		st := top.steps[top.next]
		top.next++
		p.r.setAnswer(mapOrNil(top.answer))
		gap := p.timing.StepGap
		if first {
			gap = p.timing.FirstToken
		}
		first = false
		if err := p.runStep(st, gap); err != nil {
			return err
		}
		if inv := p.entered; inv != nil {
			// the subagent's steps are a frame of their own, so that the run can pause
			// inside it
			p.entered = nil
			stack = append(stack, frame{steps: inv.step.children, answer: top.answer, subagent: inv})
			continue
		}
		if p.subagentFailed {
			var err error
			if stack, err = p.leaveFailed(stack); err != nil {
				return err
			}
			continue
		}
		if p.terminated {
			// Steps after the end in the same list can never play; the rest of the
			// conversation after a branch that ends the run is abandoned, by design.
			if top.next < len(top.steps) {
				return &stepError{at: top.steps[top.next].common().at, err: errors.New("no step may follow the end of the run")}
			}
			return nil
		}
		if len(p.interrupts) > 0 || (len(p.pendingTools) > 0 && !nextContinuesTurn(stack) && (hasMore(stack) || hasCases(p.pendingTools))) {
			p.pause(stack)
			return p.suspend(stack)
		}
	}
	return nil
}

// leaveFailed takes off the stack the frames of the invocation an error step ended,
// its own included. The list the error played in may have no steps left; the rest of
// the invocation after a branch that ends it is abandoned, by design, as the rest of a
// conversation after a branch that ends the run.
func (p *planner) leaveFailed(stack []frame) ([]frame, error) {
	if top := stack[len(stack)-1]; top.next < len(top.steps) {
		return nil, &stepError{at: top.steps[top.next].common().at, err: errSubagentEnded}
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top.subagent != nil {
			return stack, p.endSubagent(top.subagent, nil)
		}
	}
	return stack, nil
}

// errSubagentEnded is the problem of a step after the error step that ended its
// subagent.
var errSubagentEnded = errors.New("no step of a subagent may follow the error step that ends it")

func mapOrNil(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// nextContinuesTurn reports whether the next step still belongs to the turn that made
// frontend tool calls: another tool call (a model asks for parallel calls in one turn)
// or an interrupt about them.
func nextContinuesTurn(stack []frame) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		f := stack[i]
		if f.next < len(f.steps) {
			return continuesTurn(f.steps[f.next])
		}
	}
	return false
}

// hasCases reports whether a frontend tool call continues by its result.
func hasCases(calls []PendingToolCall) bool {
	return slices.ContainsFunc(calls, func(tc PendingToolCall) bool { return tc.def != nil && len(tc.def.cases) > 0 })
}

func hasMore(stack []frame) bool {
	for _, f := range stack {
		if f.next < len(f.steps) {
			return true
		}
	}
	return false
}

// runSteps plays a span's steps in order, with the step gap before each, unless a step
// sets its own delay.
func (p *planner) runSteps(steps []step) error {
	for _, s := range steps {
		switch {
		case p.terminated:
			return &stepError{at: s.common().at, err: errors.New("no step may follow the end of the run")}
		case p.subagentFailed:
			return &stepError{at: s.common().at, err: errSubagentEnded}
		}
		if err := p.runStep(s, p.timing.StepGap); err != nil {
			return err
		}
		if inv := p.entered; inv != nil {
			p.entered = nil
			if err := p.runSteps(inv.step.children); err != nil {
				return err
			}
			if !p.terminated {
				if err := p.endSubagent(inv, completed()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// runStep waits the gap (or the step's own delay) and plays one step.
func (p *planner) runStep(s step, gap time.Duration) error {
	if d := s.common().delay; d != nil {
		gap = *d
	}
	p.wait(gap)
	outer, outerName, outerMetadata := p.current, p.stepName, p.metadata
	p.current = s.common().at
	if s.common().localID != "" {
		p.stepName = s.common().localID
	}
	defer func() { p.stepName, p.metadata = outerName, outerMetadata }()
	p.metadata = nil
	if md := s.common().metadata; md != nil {
		// a mapping (loading refuses anything else), so it renders an object
		v, err := md.render(p.r)
		if err != nil {
			return atStep(s.common().at, err)
		}
		p.metadata = v
	}
	if err := s.emit(p); err != nil {
		return atStep(s.common().at, err)
	}
	if err := p.checkSize(0); err != nil {
		return &stepError{at: s.common().at, err: err}
	}
	p.current = outer
	return nil
}
