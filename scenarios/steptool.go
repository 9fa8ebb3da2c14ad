package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const toolHint = "Streams a tool call: TOOL_CALL_START, TOOL_CALL_ARGS chunks, TOOL_CALL_END. " +
	"With a result it is a server-side tool and TOOL_CALL_RESULT follows; without one the frontend is expected to run the tool, and on says how the conversation continues with its result. " +
	"Give the step an id so an interrupt's toolCall or a toolResult's call can name the call."

// toolStep streams a tool call; with a result it is a server-side tool and the result
// follows, without one it is left for the client to execute.
type toolStep struct {
	stepCommon
	name   string
	args   *value
	result *value
	parent string       // "" attaches the call to the latest text message of its subagent (or agent); "none" to none
	cases  []branchCase // frontend tools: what the next run plays, by the tool's result
}

func (l *fileLoader) toolStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "tool", []string{"name", "args", "result", "parent", "on"})
	if f == nil || f["name"] == nil {
		l.diag.add(l.pos(n), "", "tool needs a name")
		return nil
	}
	s := &toolStep{stepCommon: c, name: l.name(f["name"], "a tool name"), args: &value{literal: map[string]any{}}}
	if v := f["args"]; v != nil {
		s.args = l.valueFromNode(v)
	}
	if v := f["result"]; v != nil {
		s.result = l.valueFromNode(v)
	}
	if v := f["on"]; v != nil {
		if s.result != nil {
			l.diag.add(l.pos(v), "a tool with a result runs on the server; on belongs to frontend tools", "on and result exclude each other")
		}
		s.cases = l.cases(v, false)
	}
	if v := f["parent"]; v != nil {
		s.parent = l.str(v)
		if s.parent != "none" {
			l.diag.add(l.pos(v), `parent: none leaves parentMessageId out; by default the call attaches to the run's latest text message (inside a subagent, the subagent's own)`, "parent must be none")
		}
	}
	return s
}

func (s *toolStep) emit(p *planner) error {
	id := p.stepID(&s.stepCommon, "call")
	start := protocol.NewEvent(protocol.ToolCallStart, "toolCallId", id, "toolCallName", s.name)
	if last := p.lastTexts[p.subagent()]; s.parent == "" && last != "" {
		start = start.With("parentMessageId", last)
	}
	p.emit(start)
	if err := p.stream(&s.stepCommon, s.args, splitArgs, protocol.ToolCallArgs, "toolCallId", id); err != nil {
		return err
	}
	p.emit(protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", id))
	if s.result == nil {
		put(&p.openCalls, id, true)
		p.pendingTools = append(p.pendingTools, PendingToolCall{ID: id, Name: s.name, def: s})
		return nil
	}
	result, err := p.renderText(s.result)
	if err != nil {
		return err
	}
	p.wait(p.timing.StepGap)
	p.emit(protocol.NewEvent(protocol.ToolCallResult, "messageId", p.newID("msg"), "toolCallId", id, "content", result, "role", "tool"))
	return nil
}
