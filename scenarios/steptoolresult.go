package scenarios

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/protocol"
)

const toolResultHint = "Sends TOOL_CALL_RESULT for a tool call an earlier step made: inside the on branch of an interrupt with a toolCall, the call that interrupt is about; anywhere else the call named by call. " +
	"Write the result itself, or an object with content and call." + templated

// toolResultStep answers a tool call with TOOL_CALL_RESULT: the call of the interrupt
// being answered, or the tool step named by call.
type toolResultStep struct {
	stepCommon
	content *value
	call    string
}

func (l *fileLoader) toolResultStep(c stepCommon, n *yaml.Node) step {
	if n.Kind == yaml.ScalarNode {
		if n.ShortTag() == "!!null" {
			l.diag.add(l.pos(n), "", "toolResult needs content")
			return nil
		}
		return &toolResultStep{stepCommon: c, content: l.valueFromNode(n)}
	}
	f := l.fields(n, "toolResult", []string{"content", "call"})
	if f == nil || f["content"] == nil {
		l.diag.add(l.pos(n), "", "toolResult needs content")
		return nil
	}
	s := &toolResultStep{stepCommon: c, content: l.valueFromNode(f["content"])}
	if v := f["call"]; v != nil {
		s.call = l.name(v, "call")
	}
	return s
}

func (s *toolResultStep) emit(p *planner) error {
	callID := ""
	if s.call != "" {
		callID = p.ids[s.call]
		if !p.openCalls[callID] {
			return fmt.Errorf("toolResult call %q is not the id of an earlier tool step without a result", s.call)
		}
	} else if answered, _ := p.r.answer.(map[string]any); answered["interruptId"] != nil {
		callID, _ = answered["toolCallId"].(string)
	}
	if callID == "" {
		return fmt.Errorf("toolResult needs call: <tool step id> outside the branch of a tool-bound interrupt")
	}
	content, err := p.renderText(s.content)
	if err != nil {
		return err
	}
	p.emit(protocol.NewEvent(protocol.ToolCallResult, "messageId", p.newID("msg"), "toolCallId", callID, "content", content, "role", "tool"))
	return nil
}
