package scenarios

// The frame stack of a run of steps: each frame a list of steps being played, a
// subagent's steps a frame of their own, so that a run can pause inside a subagent and
// its cursor continue there.

import (
	"errors"
	"slices"
)

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

// mapOrNil is m as a value, and nil when m is nil: a nil map in an interface is not nil,
// and a frame without an answer must give its steps none.
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

// hasMore reports whether any frame of the stack has steps left to play.
func hasMore(stack []frame) bool {
	for _, f := range stack {
		if f.next < len(f.steps) {
			return true
		}
	}
	return false
}
