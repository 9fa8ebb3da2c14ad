package scenarios

import (
	"context"
	"fmt"
)

// exampleOutcome is what checking one example of a set found: the request it stands
// for, the text of its last user message (and that text folded, see foldText), and the
// scenario it selected.
type exampleOutcome struct {
	req          *Request
	text, folded string
	selected     *Scenario
}

// maxFreshScenarios is the most scenarios new to a set for which the outcomes of the
// examples of the last set are reused: each new scenario is tried on every example, and
// past this many, selecting again for every example costs less.
const maxFreshScenarios = 64

// checkExamples checks that each example selects its own scenario, except that an
// example of a fallback scenario may select one of another source, which overrides it.
// Each check is one selection. Of a scenario that prev (the last valid set, or nil)
// held too, an example is checked again only when its outcome can have changed: a
// scenario new to the set matches it, or the scenario it selected left the set. (What
// precedes what among the scenarios both sets hold is the same in both.)
func (s *Set) checkExamples(ctx context.Context, prev *Set) ([]Diagnostic, error) {
	s.examples = make(map[*Scenario][]exampleOutcome, len(s.scenarios))
	var fresh []*Scenario
	if prev != nil {
		for _, sc := range s.scenarios {
			if prev.byID[sc.ID] != sc {
				fresh = append(fresh, sc)
			}
		}
		if len(fresh) > maxFreshScenarios {
			prev = nil
		}
	}
	var diags []Diagnostic
	for n, sc := range s.scenarios {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("loading scenarios: %w", context.Cause(ctx))
		}
		var known []exampleOutcome
		if prev != nil {
			known = prev.examples[sc]
		}
		outcomes := make([]exampleOutcome, len(sc.Examples))
		for i, ex := range sc.Examples {
			if known != nil && s.stillSelects(known[i], fresh) {
				outcomes[i] = known[i]
				continue
			}
			req, err := ex.request()
			if err != nil {
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column, Message: fmt.Sprintf("this example of scenario %s is not a run request a client can send: %v", sc.ID, err)})
				continue
			}
			msg, _ := req.Input.LastUserMessage()
			outcomes[i] = exampleOutcome{req: req, text: msg.Text(), folded: foldText(msg.Text())}
			sel, _ := s.Select(req)
			switch {
			case sel == nil:
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column, Message: fmt.Sprintf("this example of scenario %s matches no scenario", sc.ID),
					Hint: ownMisses(sc, req, "")})
			case sel.Scenario != sc && !(sc.fallback && !sel.Scenario.fallback): // the user's scenarios override fallback ones
				diags = append(diags, Diagnostic{File: ex.pos.File, Line: ex.pos.Line, Column: ex.pos.Column,
					Message: fmt.Sprintf("this example of scenario %s selects scenario %s (%s) instead", sc.ID, sel.Scenario.ID, sel.Scenario.Source),
					Hint:    ownMisses(sc, req, "raise the priority or narrow the match of one of them")})
			default:
				outcomes[i].selected = sel.Scenario
			}
		}
		s.examples[sc] = outcomes
	}
	return diags, nil
}

// stillSelects reports whether an example of the last set selects the same scenario in
// this one: that scenario is still in the set, and no scenario new to it matches.
func (s *Set) stillSelects(o exampleOutcome, fresh []*Scenario) bool {
	if o.selected == nil || s.byID[o.selected.ID] != o.selected {
		return false
	}
	for _, sc := range fresh {
		if containsAll(o.folded, sc.Match.literals) && sc.Match.holds(o.req, o.text) {
			return false
		}
	}
	return true
}

// dryRunOf returns what the dry runs of a scenario of the set found, and whether the set
// holds it; a nil set holds none.
func (s *Set) dryRunOf(sc *Scenario) ([]Diagnostic, bool) {
	if s == nil {
		return nil, false
	}
	d, ok := s.dryRuns[sc]
	return d, ok
}
