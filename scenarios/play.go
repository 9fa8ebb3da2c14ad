package scenarios

// Playing a scenario: its steps or its explicit events, frame by frame, into the
// planner's timed events.

import (
	"errors"
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
