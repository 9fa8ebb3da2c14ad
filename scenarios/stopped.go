package scenarios

import (
	"errors"

	"github.com/agui-mock/agui-mock/protocol"
)

// checkStopped checks the planned run of a stopped scenario: its events by the rules
// of a run under way, every rule but the one that a run ends, and that it does not end,
// since it stops without a terminal event where the stall the planner adds holds it.
func (sc *Scenario) checkStopped(plan *Plan, origins []pos, threadID string, broke map[protocol.Rule]bool) []Diagnostic {
	at := func(index int, msg, hint string) Diagnostic {
		if index < 0 || index >= len(origins) {
			return sc.diagnostic(msg, hint)
		}
		o := origins[index]
		return Diagnostic{File: o.File, Line: o.Line, Column: o.Column, Message: msg, Hint: hint}
	}
	v := &protocol.RuleChecker{ThreadID: threadID, Tolerate: sc.Breaks}
	defer func() {
		for _, r := range v.Breaks {
			broke[r] = true
		}
	}()
	var diags []Diagnostic
	for i, t := range plan.Events {
		if t.Fault != nil {
			if i != len(plan.Events)-1 {
				return append(diags, at(i, "a stopped scenario breaks its stream with a "+t.Fault.Kind+" fault", "faults are deliberate: use broken: <reason> instead of stopped"))
			}
			break
		}
		if t.Event.Type == protocol.RunFinished || t.Event.Type == protocol.RunError {
			return append(diags, at(i, "a stopped scenario's run ends with "+t.Event.Type, "a stopped run stops without a terminal event: remove the event, or remove stopped"))
		}
		if err := v.Check(t.Event); err != nil {
			index := i
			msg, hint := "the scenario breaks the AG-UI event rules: "+err.Error(), "fix the events, or add broken: <reason> if the breakage is the point"
			var se *protocol.SequenceError
			if errors.As(err, &se) {
				index = se.Index
				if se.Rule != "" {
					msg, hint = ruleDiagnostic(se)
				}
			}
			return append(diags, at(index, msg, hint))
		}
	}
	for _, w := range v.Warnings {
		diags = append(diags, at(w.Index, w.Error(), "add broken: <reason> to send it anyway"))
	}
	return diags
}
