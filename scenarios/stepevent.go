package scenarios

import (
	"slices"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const eventHint = "Sends one event exactly as written (the escape hatch). " +
	"type is required; every other key is an event field, delay included: put the step's delay next to event, not inside it." + templated

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

// eventStep reads an event as written; in the explicit form (explicit) its delay is
// the event's own, not a member.
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

// eventStepOfList reads an event step of a steps list, whose delay is the step's own,
// not inside the event.
func (l *fileLoader) eventStepOfList(c stepCommon, n *yaml.Node) step {
	if s := l.eventStep(c, n, false); s != nil {
		return s
	}
	return nil // not a nil *eventStep, which a list of steps would keep
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
