package scenarios

import (
	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

const errorHint = "Ends the run with RUN_ERROR (inside a subagent: ends the subagent with SUBAGENT_ERROR, and the run goes on after it); it must be the last step of its list. " +
	"Write the message, or an object with message and code." + templated

// errorStep ends the run with RUN_ERROR, or the subagent it is inside with
// SUBAGENT_ERROR.
type errorStep struct {
	stepCommon
	message *value
	code    *value
}

func (l *fileLoader) errorStep(c stepCommon, n *yaml.Node) step {
	if n.Kind == yaml.ScalarNode {
		return &errorStep{stepCommon: c, message: l.text(n, "an error message")}
	}
	f := l.fields(n, "error", []string{"message", "code"})
	if f == nil || f["message"] == nil {
		l.diag.add(l.pos(n), "", "error needs a message")
		return nil
	}
	s := &errorStep{stepCommon: c, message: l.text(f["message"], "an error message")}
	if v := f["code"]; v != nil {
		s.code = l.text(v, "an error code")
	}
	return s
}

func (s *errorStep) emit(p *planner) error {
	msg, err := p.renderText(s.message)
	if err != nil {
		return err
	}
	ev := protocol.NewEvent(protocol.RunError, "message", msg)
	if sa := p.subagent(); sa != "" {
		ev = protocol.NewEvent(protocol.SubagentError, "subagentRunId", sa, "message", msg)
	}
	if s.code != nil {
		code, err := p.renderText(s.code)
		if err != nil {
			return err
		}
		ev = ev.With("code", code)
	}
	p.emit(p.withUsage(ev))
	if ev.Type == protocol.SubagentError {
		p.subagentFailed = true
		return nil
	}
	p.terminated = true
	return nil
}
