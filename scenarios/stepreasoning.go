package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const reasoningHint = "Streams a reasoning span: REASONING_START, a reasoning message streamed in chunks, an optional REASONING_ENCRYPTED_VALUE, REASONING_END. " +
	"Write the reasoning text, or an object with content and encryptedValue." + templated

// reasoningStep streams a reasoning span holding one reasoning message.
type reasoningStep struct {
	stepCommon
	content   *value
	encrypted *value
}

func (l *fileLoader) reasoningStep(c stepCommon, n *yaml.Node) step {
	s := &reasoningStep{stepCommon: c}
	if l.unquotedTemplate(n) {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		s.content = l.text(n, "reasoning content")
		return s
	}
	f := l.fields(n, "reasoning", []string{"content", "encryptedValue"})
	if f["content"] == nil {
		l.diag.add(l.pos(n), "", "reasoning needs content")
		return nil
	}
	s.content = l.text(f["content"], "reasoning content")
	if v := f["encryptedValue"]; v != nil {
		s.encrypted = l.text(v, "encryptedValue")
	}
	return s
}

func (s *reasoningStep) emit(p *planner) error {
	// The span and its message share one id, as the production API does; the protocol
	// keeps them in separate namespaces.
	id := p.stepID(&s.stepCommon, "msg")
	p.emit(protocol.NewEvent(protocol.ReasoningStart, "messageId", id))
	p.emit(protocol.NewEvent(protocol.ReasoningMessageStart, "messageId", id, "role", "reasoning"))
	if err := p.stream(&s.stepCommon, s.content, splitText, protocol.ReasoningMessageContent, "messageId", id); err != nil {
		return err
	}
	p.emit(protocol.NewEvent(protocol.ReasoningMessageEnd, "messageId", id))
	if s.encrypted != nil {
		enc, err := p.renderText(s.encrypted)
		if err != nil {
			return err
		}
		p.emit(protocol.NewEvent(protocol.ReasoningEncryptedValue, "subtype", "message", "entityId", id, "encryptedValue", enc))
	}
	p.emit(protocol.NewEvent(protocol.ReasoningEnd, "messageId", id))
	return nil
}
