package scenarios

import (
	"slices"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

// eventStep emits one event exactly as written: the escape hatch of the steps form and
// each entry of the explicit events form.
type eventStep struct {
	stepCommon
	typ    string
	names  []string
	values []*value
	order  *protocol.KeyOrder // of the objects in its fields, as written: they are sent so
}

func (s *eventStep) add(name string, v *value) {
	s.names = append(s.names, name)
	s.values = append(s.values, v)
}

func (l *fileLoader) eventStep(c stepCommon, n *yaml.Node, explicit bool) *eventStep {
	if n.Kind != yaml.MappingNode {
		l.diag.add(l.pos(n), "", "an event must be a mapping with a type")
		return nil
	}
	s := &eventStep{stepCommon: c}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == keyType:
			s.typ = l.str(v)
			if strings.Contains(s.typ, "{{") {
				l.diag.add(l.pos(v), "", "an event type cannot be a template")
			}
		case k.Value == keyDelay && explicit:
			d := l.duration(v)
			s.delay = &d
		default:
			s.add(k.Value, l.valueFromNode(v))
			if o := nodeKeyOrder(v); o != nil {
				if s.order == nil {
					s.order = &protocol.KeyOrder{}
				}
				s.order.Keys, s.order.Next = append(s.order.Keys, k.Value), append(s.order.Next, o)
			}
		}
	}
	if s.typ == "" {
		l.diag.add(l.pos(n), "e.g. type: CUSTOM", "an event needs a type")
		return nil
	}
	for i, name := range s.names {
		if protocol.IsStringField(s.typ, name) {
			s.values[i].asText(s.typ + "." + name)
		}
	}
	return s
}

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

func (s *eventStep) emit(p *planner) error {
	ev := protocol.Event{Type: s.typ, Fields: make([]protocol.Field, 0, len(s.names)), Order: s.order}
	for i, name := range s.names {
		v, err := s.values[i].render(p.r)
		if err != nil {
			return err
		}
		if list, ok := v.([]any); ok && s.typ == protocol.MessagesSnapshot && name == "messages" {
			v = present(list)
			ev.Order = messagesOrder(ev.Order, name, v.([]any), len(v.([]any)) == len(list))
		}
		ev.Fields = append(ev.Fields, protocol.Field{Name: name, Value: v})
	}
	p.emit(ev)
	if s.typ == protocol.RunError {
		p.terminated = true
	}
	return nil
}

// present leaves out of a snapshot's messages those that rendered as nothing: a
// recording's {{ nth -3 .messages }} for a message the replayed request does not have.
func present(messages []any) []any {
	if !slices.Contains(messages, nil) {
		return messages
	}
	out := make([]any, 0, len(messages))
	for _, m := range messages {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// messageMembers is the order AG-UI's message types declare their members in, which
// its reference adapters (LangGraph's) and clients write them in: that of a message a
// snapshot gets from the request ({{ nth -1 .messages }}), whose order the file does not
// hold.
var messageMembers = []string{"id", "role", "content", "name", "toolCalls", "toolCallId", "error", "encryptedValue"}

// messagesOrder is the order of a snapshot's messages: as written where the file holds
// it and the messages kept their places (aligned), and messageMembers' for the others.
func messagesOrder(o *protocol.KeyOrder, name string, messages []any, aligned bool) *protocol.KeyOrder {
	written := o.Member(name)
	items := make([]*protocol.KeyOrder, len(messages))
	for i := range messages {
		if aligned {
			items[i] = written.Item(i)
		}
		if items[i] == nil {
			items[i] = &protocol.KeyOrder{Keys: messageMembers}
		}
	}
	out := &protocol.KeyOrder{Keys: []string{name}, Next: []*protocol.KeyOrder{{Next: items}}}
	if o != nil {
		for i, k := range o.Keys {
			if k != name {
				out.Keys, out.Next = append(out.Keys, k), append(out.Next, o.Item(i))
			}
		}
	}
	return out
}
