package scenarios

import "fmt"

// endingFault is a fault step of a kind that rewrites the run's RUN_FINISHED: the
// player rewrites it when the run ends, so planning only checks that the run has an end
// the kind can rewrite.
type endingFault struct {
	kind FaultKind
	at   pos
}

// endingUnsent refuses a fault step that rewrites the run's end when the run does not
// end with RUN_FINISHED (an error step or a fault that ends the stream came after it):
// the fault would never strike, which is a mistake in the scenario, not a choice.
func (p *planner) endingUnsent() error {
	if len(p.ending) == 0 || p.stopped != "" {
		return nil
	}
	e := p.ending[0]
	return &stepError{at: e.at, err: fmt.Errorf("fault %s rewrites the run's RUN_FINISHED, and this run ends without one: put the fault in a run that finishes", e.kind.Name)}
}

// endingApplies refuses a fault step that rewrites the interrupts of the run's
// interrupt outcome when the run raises none, or raises them in the LangGraph dialect,
// whose RUN_FINISHED carries no interrupts.
func (p *planner) endingApplies() error {
	for _, e := range p.ending {
		if !e.kind.NeedsInterrupts() {
			continue
		}
		switch {
		case len(p.interrupts) == 0:
			return &stepError{at: e.at, err: fmt.Errorf("fault %s acts on the interrupts of the run's interrupt outcome, and this run raises none: put it in a run with an interrupt step", e.kind.Name)}
		case p.dialect == DialectLangGraph:
			return &stepError{at: e.at, err: fmt.Errorf("fault %s acts on the interrupts of the run's interrupt outcome, and this run raises them in the LangGraph dialect, as on_interrupt events, with no interrupt outcome", e.kind.Name)}
		}
	}
	return nil
}
