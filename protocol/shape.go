package protocol

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// kind is the JSON type a field must have.
type kind int

const (
	kString kind = iota
	kObject
	kArray
	kBool
	kInteger
	kAny         // any value, null included
	kNotNull     // any value but null
	kTextOrParts // a string or an array of content parts
	kMessages    // an array of messages, each with a string id and a known role
	kUsage       // an array of token usage entries (checkUsageList)
)

type fieldSpec struct {
	name     string
	kind     kind
	required bool
	enum     []string
}

func req(name string, k kind) fieldSpec { return fieldSpec{name: name, kind: k, required: true} }
func opt(name string, k kind) fieldSpec { return fieldSpec{name: name, kind: k} }
func oneOf(f fieldSpec, values ...string) fieldSpec {
	f.enum = values
	return f
}

var textRoles = []string{"developer", "system", "assistant", "user"}

// eventFields lists, per event type, the fields the 1.1 schema declares beyond the
// envelope (type, timestamp, rawEvent, metadata, subagentRunId).
var eventFields = map[string][]fieldSpec{
	RunStarted:              {req("threadId", kString), req("runId", kString), opt("parentRunId", kString), opt("input", kObject), opt("protocolVersion", kString)},
	RunFinished:             {req("threadId", kString), req("runId", kString), opt("result", kNotNull), opt("outcome", kNotNull), opt("usage", kUsage)},
	RunError:                {req("message", kString), opt("code", kString), opt("usage", kUsage), opt("threadId", kString), opt("runId", kString)},
	StepStarted:             {req("stepName", kString)},
	StepFinished:            {req("stepName", kString)},
	TextMessageStart:        {req("messageId", kString), oneOf(opt("role", kString), textRoles...), opt("name", kString)},
	TextMessageContent:      {req("messageId", kString), req("delta", kString)},
	TextMessageEnd:          {req("messageId", kString)},
	TextMessageChunk:        {opt("messageId", kString), oneOf(opt("role", kString), textRoles...), opt("delta", kString), opt("name", kString)},
	ToolCallStart:           {req("toolCallId", kString), req("toolCallName", kString), opt("parentMessageId", kString)},
	ToolCallArgs:            {req("toolCallId", kString), req("delta", kString)},
	ToolCallEnd:             {req("toolCallId", kString)},
	ToolCallChunk:           {opt("toolCallId", kString), opt("toolCallName", kString), opt("parentMessageId", kString), opt("delta", kString)},
	ToolCallResult:          {req("messageId", kString), req("toolCallId", kString), req("content", kTextOrParts), oneOf(opt("role", kString), "tool")},
	StateSnapshot:           {req("snapshot", kAny)},
	StateDelta:              {req("delta", kArray)},
	MessagesSnapshot:        {req("messages", kMessages)},
	ActivitySnapshot:        {req("messageId", kString), req("activityType", kString), req("content", kObject), opt("replace", kBool)},
	ActivityDelta:           {req("messageId", kString), req("activityType", kString), req("patch", kArray)},
	Raw:                     {req("event", kAny), opt("source", kString)},
	Custom:                  {req("name", kString), req("value", kAny)},
	ReasoningStart:          {req("messageId", kString)},
	ReasoningMessageStart:   {req("messageId", kString), oneOf(req("role", kString), "reasoning")},
	ReasoningMessageContent: {req("messageId", kString), req("delta", kString)},
	ReasoningMessageEnd:     {req("messageId", kString)},
	ReasoningMessageChunk:   {opt("messageId", kString), opt("delta", kString)},
	ReasoningEnd:            {req("messageId", kString)},
	ReasoningEncryptedValue: {oneOf(req("subtype", kString), "tool-call", "message"), req("entityId", kString), req("encryptedValue", kString), opt("encryptedValueType", kString)},
	SubagentStarted:         {req("subagentRunId", kString), req("name", kString), opt("description", kString), opt("parentSubagentRunId", kString), opt("parentToolCallId", kString), opt("parentMessageId", kString)},
	SubagentFinished:        {req("subagentRunId", kString), opt("result", kNotNull), opt("outcome", kObject)},
	SubagentError:           {req("subagentRunId", kString), req("message", kString), opt("code", kString)},
	ThinkingStart:           {opt("title", kString)},
	ThinkingEnd:             {},
	ThinkingTextStart:       {},
	ThinkingTextContent:     {req("delta", kString)},
	ThinkingTextEnd:         {},
}

var envelope = []fieldSpec{opt("timestamp", kInteger), opt("rawEvent", kNotNull), opt("metadata", kObject), opt("subagentRunId", kString)}

// KnownEventTypes returns every event type the protocol defines.
func KnownEventTypes() []string {
	types := make([]string, 0, len(eventFields))
	for t := range eventFields {
		types = append(types, t)
	}
	slices.Sort(types)
	return types
}

// IsStringField reports whether AG-UI defines the named field of events of the type as
// a string.
func IsStringField(typ, name string) bool {
	for _, list := range [][]fieldSpec{envelope, eventFields[typ]} {
		for _, s := range list {
			if s.name == name {
				return s.kind == kString
			}
		}
	}
	return false
}

// unattributed lists the event types that carry no subagent attribution: the run-scoped
// ones, the conversation-wide MESSAGES_SNAPSHOT, the subagent lifecycle (whose
// subagentRunId names the invocation itself), and the THINKING family 1.1 dropped.
var unattributed = []string{RunStarted, RunFinished, RunError, MessagesSnapshot, SubagentStarted, SubagentFinished,
	SubagentError, ThinkingStart, ThinkingEnd, ThinkingTextStart, ThinkingTextContent, ThinkingTextEnd}

// Attributable reports whether an event of the type can belong to a subagent's work,
// and so carry a subagentRunId.
func Attributable(typ string) bool {
	return knownEvent(typ) && !slices.Contains(unattributed, typ)
}

func knownEvent(typ string) bool {
	_, ok := eventFields[typ]
	return ok
}

// checkShape verifies that the event's known fields are present and of the right type.
// Unknown event types pass here; the sequence rules decide about them.
func checkShape(ev Event) error {
	if ev.Type == "" {
		return fmt.Errorf("the event has no type")
	}
	specs, known := eventFields[ev.Type]
	if !known {
		return nil
	}
	for _, list := range [][]fieldSpec{envelope, specs} {
		for _, s := range list {
			v, has := ev.Get(s.name)
			if !has {
				if s.required {
					return fmt.Errorf("%s: required field %q is missing", ev.Type, s.name)
				}
				continue
			}
			if err := checkKind(s, v); err != nil {
				return fmt.Errorf("%s.%s: %w", ev.Type, s.name, err)
			}
		}
	}
	return nil
}

func checkKind(s fieldSpec, v any) error {
	if v == nil && s.kind != kAny {
		return fmt.Errorf("must not be null (omit the field instead)")
	}
	ok := true
	switch s.kind {
	case kString:
		str, isStr := v.(string)
		ok = isStr
		if ok && s.enum != nil && !slices.Contains(s.enum, str) {
			if len(s.enum) == 1 {
				return fmt.Errorf("expected %q, got %q", s.enum[0], str)
			}
			return fmt.Errorf("expected one of %q, got %q", s.enum, str)
		}
	case kObject:
		_, ok = v.(map[string]any)
	case kArray:
		_, ok = v.([]any)
	case kBool:
		_, ok = v.(bool)
	case kInteger:
		ok = isInteger(v)
	case kTextOrParts:
		switch v.(type) {
		case string, []any:
		default:
			ok = false
		}
	case kUsage:
		return checkUsageList(v)
	case kMessages:
		var list []any
		if list, ok = v.([]any); ok {
			for i, m := range list {
				if err := checkMessage(m); err != nil {
					return fmt.Errorf("the message at index %d: %w", i, err)
				}
			}
		}
	}
	if !ok {
		return fmt.Errorf("expected %s, got %s", kindName(s.kind), jsonKind(v))
	}
	return nil
}

// checkMessage verifies what every AG-UI message carries: a string id and a known role.
func checkMessage(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("expected an object, got %s", jsonKind(v))
	}
	if id, ok := m["id"].(string); !ok {
		if _, has := m["id"]; !has {
			return fmt.Errorf("no id (every message needs one)")
		}
		return fmt.Errorf("the id is %s, expected a string", jsonKind(m["id"]))
	} else if id == "" {
		return fmt.Errorf("the id is empty")
	}
	role, ok := m["role"].(string)
	if !ok {
		if _, has := m["role"]; !has {
			return fmt.Errorf("no role (one of %s)", strings.Join(messageRoles, ", "))
		}
		return fmt.Errorf("the role is %s, expected a string", jsonKind(m["role"]))
	}
	if !slices.Contains(messageRoles, role) {
		return fmt.Errorf("unknown role %q (one of %s)", role, strings.Join(messageRoles, ", "))
	}
	return nil
}

func isInteger(v any) bool {
	switch n := v.(type) {
	case json.Number:
		_, err := n.Int64()
		return err == nil
	case float64:
		return n == math.Trunc(n) && math.Abs(n) <= 1<<53
	case int, int64:
		return true
	}
	return false
}

func kindName(k kind) string {
	switch k {
	case kString:
		return "a string"
	case kObject:
		return "an object"
	case kArray:
		return "an array"
	case kBool:
		return "a boolean"
	case kInteger:
		return "an integer"
	case kTextOrParts:
		return "a string or an array of content parts"
	case kMessages:
		return "an array of messages"
	}
	return "a value"
}

// JSONKind names the JSON type of a decoded value as messages say it: null, a boolean,
// a string, a number, an array or an object.
func JSONKind(v any) string { return jsonKind(v) }
