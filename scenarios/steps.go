package scenarios

import (
	"fmt"
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
		switch s.(type) {
		case *errorStep:
			hint := "RUN_ERROR ends the run"
			if l.subagents > 0 {
				hint = "inside a subagent, SUBAGENT_ERROR ends the subagent"
			}
			l.diag.add(list[i+1].common().at, hint, "no step may follow an error step")
		case *faultStep:
			l.diag.add(list[i+1].common().at, "the fault ends the stream", "no step may follow a fault step")
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

// payloadStep emits one event carrying one rendered value.
type payloadStep struct {
	stepCommon
	typ, field string
	payload    *value
}

func (s *payloadStep) emit(p *planner) error {
	v, err := s.payload.render(p.r)
	if err != nil {
		return err
	}
	switch s.typ {
	case protocol.StateSnapshot:
		p.state, p.stateKnown = v, true
	case protocol.StateDelta:
		if err := p.applyPatch(v); err != nil {
			return err
		}
	}
	p.emit(protocol.NewEvent(s.typ, s.field, v))
	return nil
}

// patch reads a JSON Patch and checks the shape of each operation.
func (l *fileLoader) patch(n *yaml.Node) *value {
	v := l.valueFromNode(n)
	if n.Kind != yaml.SequenceNode {
		l.diag.add(l.pos(n), `e.g. - {op: add, path: /items/-, value: 1}`, "a JSON Patch must be a list of operations")
		return v
	}
	for _, op := range v.items {
		for i, key := range op.keys {
			if key == "path" || key == "from" {
				op.fields[i].asPointer(key)
			}
		}
	}
	for _, opNode := range n.Content {
		f := l.fields(opNode, "a JSON Patch operation", []string{"op", "path", "value", "from"})
		if f == nil {
			continue
		}
		op := ""
		if f["op"] != nil {
			op = l.str(f["op"])
		}
		switch op {
		case "add", "replace", "test":
			if f["value"] == nil {
				l.diag.add(l.pos(opNode), "", "a %s operation needs a value", op)
			}
		case "move", "copy":
			if f["from"] == nil {
				l.diag.add(l.pos(opNode), "", "a %s operation needs from", op)
			}
		case "remove":
		default:
			l.diag.add(l.pos(opNode), "op is add, remove, replace, move, copy or test", "unknown JSON Patch op %q", op)
		}
		if f["path"] == nil {
			l.diag.add(l.pos(opNode), `a JSON Pointer such as /items/0 ("" is the whole document)`, "a JSON Patch operation needs a path")
		}
		for _, key := range []string{"path", "from"} {
			if n := f[key]; n != nil {
				l.jsonPointer(n, key)
			}
		}
	}
	return v
}

// jsonPointer checks that a JSON Patch path or from is a JSON Pointer: empty, or
// starting with a slash, or a template that renders one.
func (l *fileLoader) jsonPointer(n *yaml.Node, key string) {
	p := l.str(n)
	if p != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "{{") {
		l.diag.add(l.pos(n), fmt.Sprintf(`a JSON Pointer starts with "/", e.g. %q; "" is the whole document`, "/"+p), "JSON Patch %s %q is not a JSON Pointer", key, p)
	}
}

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

// activityStep emits an ACTIVITY_SNAPSHOT.
type activityStep struct {
	stepCommon
	activityType string
	content      *value
	replace      *bool
}

func (l *fileLoader) activityStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "activity", []string{"type", "content", "replace"})
	if f == nil || f["type"] == nil || f["content"] == nil || f["content"].Kind != yaml.MappingNode {
		l.diag.add(l.pos(n), "", "activity needs a type and a content mapping")
		return nil
	}
	s := &activityStep{stepCommon: c, activityType: l.name(f["type"], "an activity type"), content: l.valueFromNode(f["content"])}
	if v := f["replace"]; v != nil {
		b := l.bool(v)
		s.replace = &b
	}
	return s
}

func (s *activityStep) emit(p *planner) error {
	content, err := s.content.render(p.r)
	if err != nil {
		return err
	}
	id := p.stepID(&s.stepCommon, "activity")
	put(&p.activityTypes, id, s.activityType)
	ev := protocol.NewEvent(protocol.ActivitySnapshot, "messageId", id, "activityType", s.activityType, "content", content)
	if s.replace != nil {
		ev = ev.With("replace", *s.replace)
	}
	p.emit(ev)
	return nil
}

// activityDeltaStep patches an activity an earlier step created.
type activityDeltaStep struct {
	stepCommon
	target string
	patch  *value
}

func (l *fileLoader) activityDeltaStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "activityDelta", []string{"target", "patch"})
	if f == nil || f["target"] == nil || f["patch"] == nil {
		l.diag.add(l.pos(n), "target is the id: of the activity step to patch", "activityDelta needs a target and a patch")
		return nil
	}
	return &activityDeltaStep{stepCommon: c, target: l.name(f["target"], "an activityDelta target"), patch: l.patch(f["patch"])}
}

func (s *activityDeltaStep) emit(p *planner) error {
	id, ok := p.ids[s.target]
	if !ok || p.activityTypes[id] == "" {
		return fmt.Errorf("activityDelta target %q is not the id of an earlier activity step", s.target)
	}
	patch, err := s.patch.render(p.r)
	if err != nil {
		return err
	}
	p.emit(protocol.NewEvent(protocol.ActivityDelta, "messageId", id, "activityType", p.activityTypes[id], "patch", patch))
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

// subagentStep delegates to a subagent: its child steps play between SUBAGENT_STARTED
// and SUBAGENT_FINISHED, every event of theirs that can belong to a subagent carries the
// invocation's subagentRunId, and an error step among them ends it with SUBAGENT_ERROR
// instead of ending the run. Where the run pauses inside it, the subagent finishes as
// suspended and the run that continues it announces it again.
type subagentStep struct {
	stepCommon
	name        *value
	description *value
	result      *value
	children    []step
}

func (l *fileLoader) subagentStep(c stepCommon, n *yaml.Node) step {
	f := l.fields(n, "subagent", []string{"name", "description", "result", "steps"})
	if f == nil || f["name"] == nil || f["steps"] == nil {
		l.diag.add(l.pos(n), "e.g. subagent: {name: researcher, steps: [{text: Found it.}]}", "subagent needs a name and a list of steps")
		return nil
	}
	s := &subagentStep{stepCommon: c, name: l.text(f["name"], "a subagent's name")}
	if v := f["description"]; v != nil {
		s.description = l.text(v, "a subagent's description")
	}
	if v := f["result"]; v != nil {
		s.result = l.valueFromNode(v)
	}
	l.subagents++
	s.children = l.steps(f["steps"])
	l.subagents--
	if len(s.children) == 0 && f["steps"].Kind == yaml.SequenceNode && len(f["steps"].Content) == 0 {
		l.diag.add(l.pos(f["steps"]), "", "a subagent needs at least one step")
	}
	return s
}

// invocation is one subagent invocation the run is inside: the step, its id, the
// invocation that spawned it, and the metadata of the step's own events.
type invocation struct {
	step     *subagentStep
	runID    string
	parent   string
	metadata any
}

// emit announces the invocation; whoever plays the step plays its children next
// (p.entered), inside it, and then ends it (endSubagent).
func (s *subagentStep) emit(p *planner) error {
	inv := &invocation{step: s, runID: p.stepID(&s.stepCommon, "sub"), parent: p.subagent(), metadata: p.metadata}
	if err := p.announce(inv); err != nil {
		return err
	}
	p.entered = inv
	return nil
}

// announce sends the SUBAGENT_STARTED of an invocation, when it begins or when a run
// continues it, and attributes what follows to it.
func (p *planner) announce(inv *invocation) error {
	name, err := p.renderText(inv.step.name)
	if err != nil {
		return err
	}
	ev := protocol.NewEvent(protocol.SubagentStarted, "subagentRunId", inv.runID, "name", name)
	if inv.step.description != nil {
		d, err := p.renderText(inv.step.description)
		if err != nil {
			return err
		}
		ev = ev.With("description", d)
	}
	if inv.parent != "" {
		ev = ev.With("parentSubagentRunId", inv.parent)
	}
	p.emitAs(inv, ev)
	p.subagents = append(p.subagents, inv.runID)
	return nil
}

// endSubagent ends the innermost invocation: with SUBAGENT_FINISHED and its outcome,
// unless an error step ended it (SUBAGENT_ERROR, sent already).
func (p *planner) endSubagent(inv *invocation, outcome map[string]any) error {
	p.subagents = p.subagents[:len(p.subagents)-1]
	if p.subagentFailed {
		p.subagentFailed = false
		return nil
	}
	ev := protocol.NewEvent(protocol.SubagentFinished, "subagentRunId", inv.runID)
	if inv.step.result != nil && outcome["type"] == "success" {
		result, err := inv.step.result.render(p.r)
		if err != nil {
			return atStep(inv.step.at, err)
		}
		ev = ev.With("result", result)
	}
	p.emitAs(inv, ev.With("outcome", outcome))
	return nil
}

// emitAs emits an event of a subagent step's own, outside the step's turn: with its
// metadata and under its id, for breakpoints.
func (p *planner) emitAs(inv *invocation, ev protocol.Event) {
	md, name := p.metadata, p.stepName
	p.metadata = inv.metadata
	if inv.step.localID != "" {
		p.stepName = inv.step.localID
	}
	p.emit(ev)
	p.metadata, p.stepName = md, name
}

// subagent returns the id of the innermost invocation the run is inside, or "".
func (p *planner) subagent() string {
	if len(p.subagents) == 0 {
		return ""
	}
	return p.subagents[len(p.subagents)-1]
}

// completed is the outcome of a subagent that did its work.
func completed() map[string]any { return map[string]any{"type": "success"} }

// suspend finishes, innermost first, the invocations a pausing run is inside, as
// suspended with the interrupts each raised itself; the run that continues them
// announces them again (resumeSubagents).
func (p *planner) suspend(stack []frame) error {
	for i := len(stack) - 1; i >= 0; i-- {
		inv := stack[i].subagent
		if inv == nil {
			continue
		}
		ids := []any{}
		for _, pi := range p.interrupts {
			if pi.Wire["subagentRunId"] == inv.runID {
				ids = append(ids, pi.ID)
			}
		}
		if err := p.endSubagent(inv, map[string]any{"type": "suspended", "interruptIds": ids}); err != nil {
			return err
		}
	}
	return nil
}

// resumeSubagents announces again, outermost first, the invocations a continued run
// resumes inside.
func (p *planner) resumeSubagents(stack []frame) error {
	for _, f := range stack {
		if f.subagent != nil {
			if err := p.announce(f.subagent); err != nil {
				return err
			}
		}
	}
	return nil
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

// eventStep emits one event exactly as written: the escape hatch of the steps form and
// each entry of the explicit events form.
type eventStep struct {
	stepCommon
	typ    string
	names  []string
	values []*value
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
		out = append(out, b)
	}
	return out
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
	ev := protocol.Event{Type: s.typ, Fields: make([]protocol.Field, 0, len(s.names))}
	for i, name := range s.names {
		v, err := s.values[i].render(p.r)
		if err != nil {
			return err
		}
		if list, ok := v.([]any); ok && s.typ == protocol.MessagesSnapshot && name == "messages" {
			v = present(list)
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
