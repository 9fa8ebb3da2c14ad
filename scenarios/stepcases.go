package scenarios

import (
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// branchCase is one alternative of a continuation: the first case whose conditions all
// hold is played.
type branchCase struct {
	at      pos
	status  string         // interrupts: resolved or cancelled
	payload any            // interrupts: a subset the answer's payload must contain
	content *regexp.Regexp // frontend tools: searched in the tool result's text
	steps   []step
}

// cases reads a continuation: for interrupts a mapping {resolved: steps, cancelled:
// steps} or a list of cases; for frontend tools a list of cases.
func (l *fileLoader) cases(n *yaml.Node, forInterrupt bool) []branchCase {
	if n.Kind == yaml.MappingNode && forInterrupt {
		var out []branchCase
		for status, body := range l.fields(n, "on", []string{protocol.ResumeResolved, protocol.ResumeCancelled}) {
			out = append(out, branchCase{at: l.pos(body), status: status, steps: l.steps(body)})
		}
		slices.SortFunc(out, func(a, b branchCase) int {
			if a.at.Line != b.at.Line {
				return a.at.Line - b.at.Line
			}
			return a.at.Column - b.at.Column
		})
		return out
	}
	if n.Kind != yaml.SequenceNode {
		if forInterrupt {
			l.diag.add(l.pos(n), "e.g. on: {resolved: [...], cancelled: [...]}", "on must be a mapping from status to steps, or a list of cases")
		} else {
			l.diag.add(l.pos(n), "e.g. on: [{content: (?i)yes, steps: [...]}, {steps: [...]}]", "on must be a list of cases")
		}
		return nil
	}
	keys := []string{"content", "steps"}
	if forInterrupt {
		keys = []string{keyStatus, keyPayload, keySteps}
	}
	var out []branchCase
	for _, item := range n.Content {
		f := l.fields(item, "a case", keys)
		if f == nil {
			continue
		}
		bc := l.answerCondition(item, f)
		if v := f["content"]; v != nil {
			bc.content = l.regex(v)
		}
		if v := f["steps"]; v != nil {
			bc.steps = l.steps(v)
		} else {
			l.diag.add(l.pos(item), "an empty list plays nothing", "a case needs steps")
		}
		out = append(out, bc)
	}
	return out
}

// answerCondition reads the status and payload an interrupt's answer must have.
func (l *fileLoader) answerCondition(n *yaml.Node, f map[string]*yaml.Node) branchCase {
	bc := branchCase{at: l.pos(n)}
	if v := f[keyStatus]; v != nil {
		bc.status = l.str(v)
		if bc.status != protocol.ResumeResolved && bc.status != protocol.ResumeCancelled {
			l.diag.add(l.pos(v), "", "status is resolved or cancelled, got %q", bc.status)
		}
	}
	if v := f[keyPayload]; v != nil {
		bc.payload = l.literal(v)
	}
	return bc
}
