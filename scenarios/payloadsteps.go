package scenarios

import (
	"fmt"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
	"go.yaml.in/yaml/v3"
)

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
