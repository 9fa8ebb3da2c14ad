package scenarios

import (
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

// step is one entry of a scenario's steps list.
type step interface {
	emit(p *planner) error
	common() *stepCommon
}

// stepCommon holds the options every step kind takes.
type stepCommon struct {
	at              pos
	localID         string         // names the id the step generates, for {{ id "name" }}
	delay           *time.Duration // replaces the gap before the step
	tokensPerSecond *float64
	chunk           string // how streamed text is split: word (default), sentence or none
	metadata        *value // attached to every event the step writes itself
}

func (c *stepCommon) common() *stepCommon { return c }

var stepKinds = []string{"text", "reasoning", "tool", "state", "stateDelta", "messages", "activity",
	"activityDelta", "step", "subagent", "custom", "raw", "error", "pause", "event", "interrupt", "toolResult", "fault"}

var commonKeys = []string{"id", "delay", "tokensPerSecond", "chunk", "metadata"}

func (l *fileLoader) steps(n *yaml.Node) []step {
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), "", "steps must be a list")
		return nil
	}
	var list []step
	for _, item := range n.Content {
		if s := l.step(item); s != nil {
			list = append(list, s)
		}
	}
	for i, s := range list[:max(len(list)-1, 0)] {
		switch s := s.(type) {
		case *errorStep:
			hint := "RUN_ERROR ends the run"
			if l.subagents > 0 {
				hint = "inside a subagent, SUBAGENT_ERROR ends the subagent"
			}
			l.diag.add(list[i+1].common().at, hint, "no step may follow an error step")
		case *faultStep:
			if s.ends() { // a fault that rewrites the run's end or adds an event lets the run go on
				l.diag.add(list[i+1].common().at, "the "+s.fault.Kind+" fault ends the stream", "no step may follow a fault step")
			}
		}
	}
	return list
}

func (l *fileLoader) step(n *yaml.Node) step {
	f := l.fields(n, "a step", append(slices.Clone(stepKinds), commonKeys...))
	if f == nil {
		return nil
	}
	var kinds []string
	for _, k := range stepKinds {
		if f[k] != nil {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 && len(f) < len(n.Content)/2 {
		return nil // an unknown key, already reported, was probably the kind misspelled
	}
	if len(kinds) != 1 {
		l.diag.add(l.pos(n), "step kinds: "+strings.Join(stepKinds, ", "), "a step needs exactly one kind, found %d (%s)", len(kinds), strings.Join(kinds, ", "))
		return nil
	}
	c := stepCommon{at: l.pos(n)}
	if v := f["id"]; v != nil {
		c.localID = l.name(v, "a step id")
		if c.localID != "" && !slices.Contains(l.stepIDs, c.localID) {
			l.stepIDs = append(l.stepIDs, c.localID)
		}
	}
	if v := f["delay"]; v != nil {
		d := l.duration(v)
		c.delay = &d
	}
	if v := f["tokensPerSecond"]; v != nil {
		c.tokensPerSecond = l.tokensPerSecond(v)
	}
	if v := f["chunk"]; v != nil {
		c.chunk = l.str(v)
		if !slices.Contains([]string{"word", "sentence", "none"}, c.chunk) {
			l.diag.add(l.pos(v), "", "chunk is word, sentence or none, got %q", c.chunk)
		}
	}
	if v := f["metadata"]; v != nil {
		c.metadata = l.metadata(v, kinds[0])
	}
	body := f[kinds[0]]
	switch kinds[0] {
	case "text":
		return l.textStep(c, body)
	case "reasoning":
		return l.reasoningStep(c, body)
	case "tool":
		return l.toolStep(c, body)
	case "state":
		return &payloadStep{stepCommon: c, typ: protocol.StateSnapshot, field: "snapshot", payload: l.valueFromNode(body)}
	case "stateDelta":
		return &payloadStep{stepCommon: c, typ: protocol.StateDelta, field: "delta", payload: l.patch(body)}
	case "messages":
		return l.messagesStep(c, body)
	case "activity":
		return l.activityStep(c, body)
	case "activityDelta":
		return l.activityDeltaStep(c, body)
	case "step":
		return l.spanStep(c, body)
	case "subagent":
		return l.subagentStep(c, body)
	case "custom":
		f := l.fields(body, "custom", []string{"name", "value"})
		if f["name"] == nil {
			l.diag.add(l.pos(body), "", "custom needs a name")
			return nil
		}
		s := &eventStep{stepCommon: c, typ: protocol.Custom}
		s.add("name", l.text(f["name"], "a custom event's name"))
		s.add("value", l.optionalValue(f["value"]))
		return s
	case "raw":
		f := l.fields(body, "raw", []string{"event", "source"})
		if f["event"] == nil {
			l.diag.add(l.pos(body), "", "raw needs an event")
			return nil
		}
		s := &eventStep{stepCommon: c, typ: protocol.Raw}
		s.add("event", l.valueFromNode(f["event"]))
		if f["source"] != nil {
			s.add("source", l.text(f["source"], "a raw event's source"))
		}
		return s
	case "error":
		return l.errorStep(c, body)
	case "pause":
		return &pauseStep{stepCommon: c, length: l.duration(body)}
	case "event":
		return l.eventStep(c, body, false)
	case "interrupt":
		return l.interruptStep(c, body)
	case "toolResult":
		return l.toolResultStep(c, body)
	case "fault":
		return l.faultStep(c, body)
	}
	return nil
}

// metadata reads a step's metadata: an object, which every event the step writes
// itself carries (a step kind that writes none has nothing to carry it).
func (l *fileLoader) metadata(n *yaml.Node, kind string) *value {
	if kind == "pause" || kind == "fault" {
		l.diag.add(l.pos(n), "metadata rides on the events a step sends", "a %s step sends no event to carry metadata", kind)
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
	case yaml.ScalarNode:
		l.diag.add(l.pos(n), "e.g. metadata: {traceId: t-1}; templates go in its values", "metadata must be a mapping, got %q", n.Value)
		return nil
	default:
		l.diag.add(l.pos(n), "e.g. metadata: {traceId: t-1}", "metadata must be a mapping, got %s", nodeKind(n))
		return nil
	}
	return l.valueFromNode(n)
}

// optionalValue reads a node that may be absent, which means JSON null.
func (l *fileLoader) optionalValue(n *yaml.Node) *value {
	if n == nil {
		return &value{literal: nil}
	}
	return l.valueFromNode(n)
}

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

// spanStep wraps its child steps in STEP_STARTED and STEP_FINISHED.
type spanStep struct {
	stepCommon
	name     string
	children []step
}

func (l *fileLoader) spanStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "step", []string{"name", "steps"})
	if f == nil || f["name"] == nil || f["steps"] == nil {
		l.diag.add(l.pos(n), "", "step needs a name and a list of steps")
		return nil
	}
	s := &spanStep{stepCommon: c, name: l.name(f["name"], "a step name"), children: l.steps(f["steps"])}
	l.checkSpanChildren(s.children)
	return s
}

// checkSpanChildren refuses what a step span cannot hold, at any depth of the subagents
// inside it (a span checks its own): the run pauses at an interrupt, and after a
// frontend tool call that more steps follow, and a span cannot pause.
func (l *fileLoader) checkSpanChildren(children []step) {
	for i, child := range children {
		switch st := child.(type) {
		case *interruptStep:
			l.diag.add(child.common().at, "end the span before the interrupt", "an interrupt cannot be inside a step span: the run ends at it")
		case *subagentStep:
			l.checkSpanChildren(st.children)
		}
		if tool := trailingFrontendTool(child); tool != nil && i+1 < len(children) && !continuesTurn(children[i+1]) {
			l.diag.add(tool.at, "end the span with the tool call", "a frontend tool call cannot be followed by more steps inside a step span: the run ends after it")
		}
	}
}

// trailingFrontendTool returns the frontend tool step a step ends with: the step itself,
// or the last step of a span, at any depth. It returns nil for any other step.
func trailingFrontendTool(s step) *toolStep {
	switch st := s.(type) {
	case *toolStep:
		if st.result == nil {
			return st
		}
	case *spanStep:
		if len(st.children) > 0 {
			return trailingFrontendTool(st.children[len(st.children)-1])
		}
	case *subagentStep:
		if len(st.children) > 0 {
			return trailingFrontendTool(st.children[len(st.children)-1])
		}
	}
	return nil
}

// continuesTurn reports whether a step after a frontend tool call belongs to its turn:
// another frontend tool call (a model asks for parallel calls in one turn) or an
// interrupt about them.
func continuesTurn(s step) bool {
	switch st := s.(type) {
	case *toolStep:
		return st.result == nil
	case *interruptStep:
		return true
	}
	return false
}

func (s *spanStep) emit(p *planner) error {
	p.emit(protocol.NewEvent(protocol.StepStarted, "stepName", s.name))
	if err := p.runSteps(s.children); err != nil {
		return err
	}
	if !p.terminated {
		p.emit(protocol.NewEvent(protocol.StepFinished, "stepName", s.name))
	}
	return nil
}

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

// pauseStep waits.
type pauseStep struct {
	stepCommon
	length time.Duration
}

func (s *pauseStep) emit(p *planner) error {
	p.wait(s.length)
	return nil
}

// renderText renders a value to text: strings as they are, anything else as JSON, and
// a whole template that reads a path the request lacks as nothing.
func (p *planner) renderText(v *value) (string, error) {
	x, err := v.render(p.r)
	if err != nil {
		return "", err
	}
	if x == nil && v.kind == wholeValue {
		return "", nil
	}
	return jsonText(x)
}
