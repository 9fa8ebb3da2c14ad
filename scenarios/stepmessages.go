package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const messagesHint = "Sends MESSAGES_SNAPSHOT, which replaces the client's whole message list. " +
	"Write the list of messages to send, so include every message that should stay; or an object with history: true to send the conversation so far with the listed messages merged in." + templated

// messagesStep emits a MESSAGES_SNAPSHOT: the listed messages, or with history the
// conversation so far with the listed messages replacing those of the same id.
type messagesStep struct {
	stepCommon
	history  bool
	messages *value
}

func (l *fileLoader) messagesStep(c stepCommon, n *yaml.Node) step {
	s := &messagesStep{stepCommon: c}
	list := n
	if n.Kind == yaml.MappingNode {
		f := l.fields(n, "messages", []string{"history", "messages"})
		if v := f["history"]; v != nil {
			s.history = l.bool(v)
		}
		list = f["messages"]
		if list == nil {
			list = &yaml.Node{Kind: yaml.SequenceNode, Line: n.Line, Column: n.Column}
		}
	}
	if list.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(list), "", "messages must be a list of AG-UI messages")
	}
	s.messages = l.valueFromNode(list)
	return s
}

func (s *messagesStep) emit(p *planner) error {
	v, err := s.messages.render(p.r)
	if err != nil {
		return err
	}
	list, _ := v.([]any)
	if s.history {
		conv := protocol.Conversation{Messages: p.history()}
		for _, t := range p.events {
			_ = conv.Apply(t.Event)
		}
		conv.Settle()
		_ = conv.Apply(protocol.NewEvent(protocol.MessagesSnapshot, "messages", append(messageList(conv.Messages), list...)))
		list = messageList(conv.Messages)
	}
	p.emit(protocol.NewEvent(protocol.MessagesSnapshot, "messages", list))
	return nil
}

func messageList(msgs []map[string]any) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = m
	}
	return out
}
