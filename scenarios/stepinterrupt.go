package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agui-mock/agui-mock/protocol"
)

const interruptHint = "Pauses the conversation for the user: the run ends with RUN_FINISHED carrying outcome {type: interrupt, interrupts: [...]}. " +
	"Write one interrupt, or a list of them to ask several things at once. " +
	"The thread's next run must answer every interrupt in its resume list, each resolved or cancelled (an expired interrupt can only be cancelled; a resolved answer's payload, an empty object when it has none, must satisfy the responseSchema). " +
	"That run plays each interrupt's on branch, in the order written, then the steps after this one. " +
	"Cannot be inside a step span."

// interruptDef is one interrupt an interrupt step raises.
type interruptDef struct {
	at             pos
	id             *value // the wire id; minted when absent
	reason         string
	message        *value
	toolCall       string // local id of the tool step the interrupt is about
	responseSchema any
	schema         *jsonschema.Schema
	expiresIn      *time.Duration
	expiresAt      *value
	metadata       *value
	cases          []branchCase
}

// interruptStep ends the run with an interrupt outcome; the steps after it play in the
// run that answers it, after each interrupt's branch.
type interruptStep struct {
	stepCommon
	interrupts []*interruptDef
}

var interruptKeys = []string{"id", "reason", "message", "toolCall", "responseSchema", "expiresIn", "expiresAt", "metadata", "on"}

func (l *fileLoader) interruptStep(c stepCommon, n *yaml.Node) step {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) == 0 {
		l.diag.add(l.pos(n), "", "an interrupt step needs at least one interrupt")
		return nil
	}
	if l.dialect == DialectLangGraph && len(items) > 1 {
		l.diag.add(l.pos(n), "raise them in interrupt steps of their own", "in the langgraph dialect a run answers one interrupt (forwardedProps.command.resume), so an interrupt step raises one")
	}
	s := &interruptStep{stepCommon: c}
	for _, item := range items {
		f := l.fields(item, "an interrupt", interruptKeys)
		if f == nil {
			continue
		}
		d := &interruptDef{at: l.pos(item), reason: "confirmation"}
		if v := f["id"]; v != nil {
			d.id = l.text(v, "an interrupt id")
		}
		if v := f["toolCall"]; v != nil {
			d.toolCall = l.name(v, "toolCall")
			d.reason = "tool_call"
		}
		if v := f["reason"]; v != nil {
			if d.reason = l.str(v); d.reason == "" {
				l.diag.add(l.pos(v), "e.g. confirmation, input_required or tool_call", "an interrupt's reason must not be empty")
			}
		}
		if v := f["message"]; v != nil {
			d.message = l.text(v, "an interrupt's message")
		}
		if v := f["responseSchema"]; v != nil {
			if v.Kind != yaml.MappingNode {
				l.diag.add(l.pos(v), "", "responseSchema must be a JSON Schema object")
			} else {
				d.responseSchema = l.literal(v)
				d.schema = l.compileSchema(v, d.responseSchema)
			}
		}
		if v := f["expiresIn"]; v != nil {
			d.expiresIn = new(time.Duration)
			*d.expiresIn = l.duration(v)
		}
		if v := f["expiresAt"]; v != nil {
			if d.expiresIn != nil {
				l.diag.add(l.pos(v), "", "an interrupt takes expiresIn or expiresAt, not both")
			}
			if l.scalar(v, "an RFC 3339 time") && !strings.Contains(v.Value, "{{") {
				if _, err := time.Parse(time.RFC3339Nano, v.Value); err != nil {
					l.diag.add(l.pos(v), "e.g. 2030-01-01T00:00:00Z", "expiresAt %q is not an RFC 3339 time", v.Value)
				}
			}
			d.expiresAt = l.valueFromNode(v).asText("an interrupt's expiresAt")
		}
		if v := f["metadata"]; v != nil {
			if v.Kind != yaml.MappingNode {
				l.diag.add(l.pos(v), "", "an interrupt's metadata must be a mapping")
			}
			d.metadata = l.valueFromNode(v)
		}
		if v := f["on"]; v != nil {
			d.cases = l.cases(v, true)
		}
		s.interrupts = append(s.interrupts, d)
	}
	return s
}

// compileSchema checks an interrupt's responseSchema when the scenario loads.
func (l *fileLoader) compileSchema(n *yaml.Node, schema any) *jsonschema.Schema {
	compiled, err := compileResponseSchema(l.pos(n), schema)
	if err != nil {
		l.diag.add(l.pos(n), "", "%v", err)
	}
	return compiled
}

// compileResponseSchema compiles an interrupt's responseSchema; at names where it is
// written.
func compileResponseSchema(at pos, schema any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	url := "mem:///" + at.String()
	if err := c.AddResource(url, schema); err != nil {
		return nil, fmt.Errorf("responseSchema is not a JSON Schema: %w", err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("responseSchema is not a valid JSON Schema: %s", schemaProblem(err))
	}
	return compiled, nil
}

// compileRecordedSchema compiles the responseSchema an explicit run's interrupt was sent
// with. It goes through JSON first, so the compiler sees the value as a client does.
func compileRecordedSchema(at pos, schema any) (*jsonschema.Schema, error) {
	text, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("responseSchema is not JSON: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("responseSchema is not JSON: %w", err)
	}
	return compileResponseSchema(at, doc)
}

func (s *interruptStep) emit(p *planner) error {
	for _, d := range s.interrupts {
		wire := map[string]any{"reason": d.reason}
		id := p.newID("int")
		if d.id != nil {
			var err error
			if id, err = p.renderText(d.id); err != nil {
				return err
			}
		}
		wire["id"] = id
		if sa := p.subagent(); sa != "" {
			wire["subagentRunId"] = sa
		}
		pi := PendingInterrupt{ID: id, def: d, schema: d.schema}
		if d.message != nil {
			msg, err := p.renderText(d.message)
			if err != nil {
				return err
			}
			wire["message"] = msg
		}
		if d.toolCall != "" {
			pi.ToolCallID = p.ids[d.toolCall]
			if !p.openCalls[pi.ToolCallID] {
				return fmt.Errorf("interrupt toolCall %q is not the id of an earlier tool step without a result", d.toolCall)
			}
			wire["toolCallId"] = pi.ToolCallID
			// the call awaits approval, not a frontend result
			p.pendingTools = slices.DeleteFunc(p.pendingTools, func(tc PendingToolCall) bool { return tc.ID == pi.ToolCallID })
		}
		if d.responseSchema != nil {
			wire["responseSchema"] = d.responseSchema
		}
		switch {
		case d.expiresIn != nil:
			pi.ExpiresAt = p.sentAt().Add(*d.expiresIn)
			wire["expiresAt"] = p.clock().Add(*d.expiresIn).UTC().Format(time.RFC3339Nano)
		case d.expiresAt != nil:
			at, err := p.renderText(d.expiresAt)
			if err != nil {
				return err
			}
			expires, err := time.Parse(time.RFC3339Nano, at)
			if err != nil {
				return fmt.Errorf("expiresAt %q is not an RFC 3339 time", at)
			}
			pi.ExpiresAt = p.wallTime(expires)
			wire["expiresAt"] = at
		}
		if d.metadata != nil {
			md, err := d.metadata.render(p.r)
			if err != nil {
				return err
			}
			wire["metadata"] = md
		}
		pi.Wire = wire
		p.interrupts = append(p.interrupts, pi)
		if p.dialect == DialectLangGraph {
			// as LangGraph's AG-UI bridge sends an interrupt: its value, as a JSON string
			value, err := json.Marshal(wire)
			if err != nil {
				return fmt.Errorf("interrupt %q: %w", id, err)
			}
			p.emit(protocol.NewEvent(protocol.Custom, "name", protocol.OnInterrupt, "value", string(value)))
		}
	}
	return nil
}

// schemaProblem condenses a validation error to one line.
func schemaProblem(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	english := message.NewPrinter(language.English)
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			parts = append(parts, fmt.Sprintf("at '/%s': %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(english)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(parts, "; ")
}
