package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

// breaks reads a scenario's breaks: the names of the producer rules its runs break on
// purpose, as its agent does. A stream that ends open is not marked so: stopped or
// broken says it.
func (l *fileLoader) breaks(n *yaml.Node) []protocol.Rule {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	names := l.strings(n)
	if n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		l.diag.add(l.pos(n), "list the rules the agent breaks, e.g. breaks: ["+string(protocol.RuleFinishedRunID)+"], or remove breaks", "breaks lists no rule")
	}
	var out []protocol.Rule
	for i, name := range names {
		at := n
		if n.Kind == yaml.SequenceNode {
			at = n.Content[i]
		}
		rule, err := protocol.ParseRule(name)
		switch {
		case err != nil:
			l.diag.add(l.pos(at), "", "%v", err)
		case !rule.Markable():
			l.diag.add(l.pos(at), "a run that stops without a terminal event is marked stopped: <reason>, an incomplete one broken: <reason>",
				"breaks cannot list %s", rule)
		case slices.Contains(out, rule):
			l.diag.add(l.pos(at), "", "breaks lists %s twice", rule)
		default:
			out = append(out, rule)
		}
	}
	return out
}

// breaksNode writes a list of rules on one line.
func breaksNode(rules []protocol.Rule) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, r := range rules {
		n.Content = append(n.Content, str(string(r)))
	}
	return n
}

// Breaks returns the rules the recording is marked as breaking.
func (rec *Recording) Breaks() []protocol.Rule {
	n := member(rec.root, keyBreaks)
	if n == nil {
		return nil
	}
	var out []protocol.Rule
	for _, item := range n.Content {
		out = append(out, protocol.Rule(item.Value))
	}
	return out
}

// MarkBreaks adds rules to those the recording is marked as breaking (its breaks), in
// the order first marked. A recording given its first mark has it written after its
// description, where a reader of the file looks for what is special about it.
func (rec *Recording) MarkBreaks(rules []protocol.Rule) {
	marked := rec.Breaks()
	grown := false
	for _, r := range rules {
		if !slices.Contains(marked, r) {
			marked, grown = append(marked, r), true
		}
	}
	if !grown {
		return
	}
	if member(rec.root, keyBreaks) != nil {
		setMember(rec.root, keyBreaks, breaksNode(marked))
		return
	}
	at := len(rec.root.Content)
	for i := 0; i+1 < len(rec.root.Content); i += 2 {
		if k := rec.root.Content[i].Value; k == keyDescription || k == keyBroken || k == keyStopped {
			at = i + 2
		}
	}
	rec.root.Content = slices.Insert(rec.root.Content, at, str(keyBreaks), breaksNode(marked))
}

// ruleDiagnostic is the load-time error of a run that breaks a named rule its scenario
// does not mark: it names the rule and how to mark it.
func ruleDiagnostic(se *protocol.SequenceError) (msg, hint string) {
	msg = "the scenario breaks the AG-UI event rules: " + se.Error()
	if !se.Rule.Markable() {
		return msg, "fix the events, or add broken: <reason> if the breakage is the point"
	}
	return msg, fmt.Sprintf("fix the events or, if the agent this scenario stands for really does this, add breaks: [%s]", se.Rule)
}

// unbrokenMarks warns of the rules a scenario marks that none of its checked runs
// breaks: the mark is kept (verify reports it as drift if the live agent does not break
// it either), but it likely outlived the agent's bug.
func (sc *Scenario) unbrokenMarks(broke map[protocol.Rule]bool) []Diagnostic {
	if sc.Broken != "" {
		return nil
	}
	var missing []string
	for _, r := range sc.Breaks {
		if !broke[r] {
			missing = append(missing, string(r))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	d := sc.diagnostic(fmt.Sprintf("breaks lists %s, which no run of the scenario breaks", strings.Join(missing, ", ")),
		"remove it from breaks, or re-record the scenario if the agent no longer breaks it")
	d.Severity = Warning
	return []Diagnostic{d}
}
