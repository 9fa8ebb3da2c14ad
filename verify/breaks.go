package verify

import (
	"fmt"
	"slices"

	"github.com/agui-mock/agui-mock/protocol"
)

// checkRules checks the agent's run against the event rules, and compares the producer
// rules it breaks with those the scenario's run for the same request breaks (which the
// scenario marks, or it would not load). A break both make is a warning, or with
// Strict a difference; a break only one makes is a difference: it appeared in the agent
// or disappeared from it.
func (c *conversation) checkRules(t *Turn, agent, mock []protocol.Event) {
	v := &protocol.RuleChecker{Tolerate: protocol.MarkableRules()}
	err := v.Stream(agent)
	if err != nil {
		t.Differences = append(t.Differences, "the agent's stream breaks the AG-UI event rules: "+err.Error())
	}
	t.Breaks = v.Breaks
	recorded := protocol.MarkableBreaks(mock)
	for _, r := range v.Breaks {
		switch {
		case !slices.Contains(recorded, r):
			t.Differences = append(t.Differences, fmt.Sprintf("the agent breaks rule %s (%s), which the scenario's run does not: re-record the scenario, or mark it with breaks: [%s]", r, r.Describe(), r))
		case c.cfg.Strict:
			t.Differences = append(t.Differences, fmt.Sprintf("the agent breaks rule %s (%s), as the scenario marks; -strict fails every break", r, r.Describe()))
		default:
			t.Warnings = append(t.Warnings, fmt.Sprintf("the agent breaks rule %s (%s), as the scenario marks", r, r.Describe()))
		}
	}
	if err != nil {
		return // what the agent broke after the error is not known
	}
	for _, r := range recorded {
		if !slices.Contains(v.Breaks, r) {
			t.Differences = append(t.Differences, fmt.Sprintf("the agent no longer breaks rule %s (%s), which the scenario's run breaks: re-record the scenario", r, r.Describe()))
		}
	}
}

// warnings counts the warnings of the scenario's turns.
func (r Result) warnings() int {
	n := 0
	for _, t := range r.Turns {
		n += len(t.Warnings)
	}
	return n
}

// Warnings counts the warnings of every scenario verified.
func (r *Report) Warnings() int {
	n := 0
	for _, res := range r.Results {
		n += res.warnings()
	}
	return n
}
