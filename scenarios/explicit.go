package scenarios

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// The explicit form: a scenario's events as written (each an eventStep, stepevent.go)
// and the continuations that follow them.

// branches reads a run's next: its continuations, each with the answers it is chosen by.
func (l *fileLoader) branches(n *yaml.Node) []eventsBranch {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "next must be a list of {when, events, next}")
		return nil
	}
	var out []eventsBranch
	for _, item := range n.Content {
		f := l.fields(item, "a continuation", continuationKeys)
		if f == nil {
			continue
		}
		b := eventsBranch{at: l.pos(item)}
		if w := f[keyWhen]; w != nil {
			wf := l.fields(w, "when", whenKeys)
			if v := wf[keyResume]; v != nil {
				b.resume = l.resumeConditions(v)
			}
			if v := wf[keyToolResults]; v != nil && v.Kind == yaml.SequenceNode {
				for _, r := range v.Content {
					b.toolResults = append(b.toolResults, l.regex(r))
				}
			} else if v != nil {
				l.diag.add(l.pos(v), "", "toolResults must be a list of patterns, one per tool call in order")
			}
		}
		if f[keyEvents] == nil {
			l.diag.add(l.pos(item), "", "a continuation needs events")
			continue
		}
		b.run = eventsRun{events: l.explicitEvents(f[keyEvents]), next: l.branches(f[keyNext])}
		if f[keyStopped] != nil {
			b.run.stopped = l.stopped(f, "continuation")
		}
		out = append(out, b)
	}
	return out
}

// stopped reads the stopped of a scenario or a continuation (what names it in the
// problems): the reason its run stops without a terminal event. Such a run is not
// continued: it has no next.
func (l *fileLoader) stopped(f map[string]*yaml.Node, what string) string {
	v := f[keyStopped]
	why := l.str(v)
	switch {
	case strings.TrimSpace(why) == "":
		l.diag.add(l.pos(v), "e.g. stopped: the client stopped the run while it was recorded", "stopped needs the reason the run stops without a terminal event")
	case f[keyNext] != nil:
		l.diag.add(l.pos(f[keyNext]), "a run that stops is not continued", "a stopped %s has no next", what)
	}
	return why
}

// resumeConditions reads when.resume: per interrupt, in order, {status, payload}.
func (l *fileLoader) resumeConditions(n *yaml.Node) []branchCase {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "e.g. resume: [{status: resolved}, {status: cancelled}]", "resume must be a list, one condition per interrupt in order")
		return nil
	}
	var out []branchCase
	for _, item := range n.Content {
		f := l.fields(item, "a resume condition", resumeConditionKeys)
		out = append(out, l.answerCondition(item, f))
	}
	return out
}

// explicitEvents reads the events of the explicit form, whose delays are their own.
func (l *fileLoader) explicitEvents(n *yaml.Node) []eventStep {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "events must be a list")
		return nil
	}
	var list []eventStep
	for _, item := range n.Content {
		if s := l.eventStep(stepCommon{at: l.pos(item)}, item, true); s != nil {
			list = append(list, *s)
		}
	}
	return list
}
