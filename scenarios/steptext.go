package scenarios

import (
	"slices"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const textHint = "Streams a text message: TEXT_MESSAGE_START, one TEXT_MESSAGE_CONTENT per chunk, TEXT_MESSAGE_END. " +
	"Write the text itself, or an object with content, role and name." + templated

// textStep streams an assistant (or other role) text message.
type textStep struct {
	stepCommon
	content *value
	role    string
	name    *value
}

func (l *fileLoader) textStep(c stepCommon, n *yaml.Node) step {
	s := &textStep{stepCommon: c, role: "assistant"}
	if l.unquotedTemplate(n) {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		s.content = l.text(n, "a text step's content")
		return s
	}
	f := l.fields(n, "text", []string{"content", "role", "name"})
	if f["content"] == nil {
		l.diag.add(l.pos(n), "", "text needs content")
		return nil
	}
	s.content = l.text(f["content"], "a text message's content")
	if v := f["role"]; v != nil {
		s.role = l.str(v)
		if !slices.Contains([]string{"assistant", "developer", "system", "user"}, s.role) {
			l.diag.add(l.pos(v), "", "a text message's role is assistant, developer, system or user, got %q", s.role)
		}
	}
	if v := f["name"]; v != nil {
		s.name = l.text(v, "a text message's name")
	}
	return s
}

func (s *textStep) emit(p *planner) error {
	id := p.stepID(&s.stepCommon, "msg")
	idValue := any(id) // boxed once for the start and the end
	start := protocol.NewEvent(protocol.TextMessageStart, "messageId", idValue, "role", s.role)
	if s.name != nil {
		name, err := p.renderText(s.name)
		if err != nil {
			return err
		}
		start = start.With("name", name)
	}
	p.emit(start)
	if err := p.stream(&s.stepCommon, s.content, splitText, protocol.TextMessageContent, "messageId", id); err != nil {
		return err
	}
	p.emit(protocol.NewEvent(protocol.TextMessageEnd, "messageId", idValue))
	put(&p.lastTexts, p.subagent(), id)
	return nil
}
