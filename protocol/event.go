package protocol

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Event types of AG-UI 1.1 plus the deprecated THINKING family that 0.0.x clients accept.
const (
	RunStarted              = "RUN_STARTED"
	RunFinished             = "RUN_FINISHED"
	RunError                = "RUN_ERROR"
	StepStarted             = "STEP_STARTED"
	StepFinished            = "STEP_FINISHED"
	TextMessageStart        = "TEXT_MESSAGE_START"
	TextMessageContent      = "TEXT_MESSAGE_CONTENT"
	TextMessageEnd          = "TEXT_MESSAGE_END"
	TextMessageChunk        = "TEXT_MESSAGE_CHUNK"
	ToolCallStart           = "TOOL_CALL_START"
	ToolCallArgs            = "TOOL_CALL_ARGS"
	ToolCallEnd             = "TOOL_CALL_END"
	ToolCallChunk           = "TOOL_CALL_CHUNK"
	ToolCallResult          = "TOOL_CALL_RESULT"
	StateSnapshot           = "STATE_SNAPSHOT"
	StateDelta              = "STATE_DELTA"
	MessagesSnapshot        = "MESSAGES_SNAPSHOT"
	ActivitySnapshot        = "ACTIVITY_SNAPSHOT"
	ActivityDelta           = "ACTIVITY_DELTA"
	Raw                     = "RAW"
	Custom                  = "CUSTOM"
	ReasoningStart          = "REASONING_START"
	ReasoningMessageStart   = "REASONING_MESSAGE_START"
	ReasoningMessageContent = "REASONING_MESSAGE_CONTENT"
	ReasoningMessageEnd     = "REASONING_MESSAGE_END"
	ReasoningMessageChunk   = "REASONING_MESSAGE_CHUNK"
	ReasoningEnd            = "REASONING_END"
	ReasoningEncryptedValue = "REASONING_ENCRYPTED_VALUE"
	SubagentStarted         = "SUBAGENT_STARTED"
	SubagentFinished        = "SUBAGENT_FINISHED"
	SubagentError           = "SUBAGENT_ERROR"
	ThinkingStart           = "THINKING_START"
	ThinkingEnd             = "THINKING_END"
	ThinkingTextStart       = "THINKING_TEXT_MESSAGE_START"
	ThinkingTextContent     = "THINKING_TEXT_MESSAGE_CONTENT"
	ThinkingTextEnd         = "THINKING_TEXT_MESSAGE_END"
)

// Field is one member of an event other than its type and timestamp.
type Field struct {
	Name  string
	Value any
}

// Event is one AG-UI event. Fields keep the order they were written in so that the wire
// form reads like the reference encoders' output (type first, then timestamp, then the
// rest). Values are plain JSON values: nil, bool, string, float64, json.Number, []any and
// map[string]any. Order, when set, is the order of the members of the objects in its
// fields' values, by field name, as an agent wrote them or a scenario file: they are
// encoded in it (without it, in sorted order).
type Event struct {
	Type   string
	Fields []Field
	Order  *KeyOrder
}

// NewID returns an id of the form prefix-hhhhhhhhhhhh: the high 48 bits of random as
// twelve hex digits, which keeps ids short and as unique as their source.
func NewID(prefix string, random uint64) string {
	var digits [13]byte
	// a leading 1 above the 48 bits keeps their zeros: "1" and then twelve digits
	hex := strconv.AppendUint(digits[:0], random>>16|1<<48, 16)
	return prefix + "-" + string(hex[1:])
}

// NewEvent builds an event from alternating name/value pairs.
func NewEvent(typ string, nameValues ...any) Event {
	ev := Event{Type: typ, Fields: make([]Field, 0, len(nameValues)/2)}
	for i := 0; i+1 < len(nameValues); i += 2 {
		ev.Fields = append(ev.Fields, Field{Name: nameValues[i].(string), Value: nameValues[i+1]})
	}
	return ev
}

// Get returns the value of the named field and whether the event has it.
func (e Event) Get(name string) (any, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

// Str returns the named field when it is a string, or "".
func (e Event) Str(name string) string {
	v, _ := e.Get(name)
	s, _ := v.(string)
	return s
}

// StrValue is Str as the field's own value: the string boxed as the event holds it,
// so that a map that keeps it allocates nothing more; "" when the field is not a string.
func (e Event) StrValue(name string) any {
	if v, _ := e.Get(name); v != nil {
		if _, ok := v.(string); ok {
			return v
		}
	}
	return ""
}

// Outcome returns a RUN_FINISHED event's outcome object, or nil when it has none.
func (e Event) Outcome() map[string]any {
	outcome, _ := e.Get("outcome")
	o, _ := outcome.(map[string]any)
	return o
}

// Cancelled reports whether an event ends a run as cancelled: RUN_FINISHED with outcome
// cancelled, or the RUN_ERROR with code cancelled that 0.0.x clients get instead.
func (e Event) Cancelled() bool {
	switch e.Type {
	case RunFinished:
		return e.Outcome()["type"] == "cancelled"
	case RunError:
		return e.Str("code") == "cancelled"
	}
	return false
}

// With returns a copy of the event with the named field set, replacing an existing one
// in place or appending it.
func (e Event) With(name string, value any) Event {
	out := Event{Type: e.Type, Fields: make([]Field, 0, len(e.Fields)+1), Order: e.Order}
	replaced := false
	for _, f := range e.Fields {
		if f.Name == name {
			f.Value, replaced = value, true
		}
		out.Fields = append(out.Fields, f)
	}
	if !replaced {
		out.Fields = append(out.Fields, Field{Name: name, Value: value})
	}
	return out
}

// Without returns a copy of the event without the named fields.
func (e Event) Without(names ...string) Event {
	out := Event{Type: e.Type, Fields: make([]Field, 0, len(e.Fields)), Order: e.Order}
next:
	for _, f := range e.Fields {
		for _, n := range names {
			if f.Name == n {
				continue next
			}
		}
		out.Fields = append(out.Fields, f)
	}
	return out
}

// Map returns the event as a JSON object, type included.
func (e Event) Map() map[string]any {
	m := make(map[string]any, len(e.Fields)+1)
	m["type"] = e.Type
	for _, f := range e.Fields {
		m[f.Name] = f.Value
	}
	return m
}

// EventFromMap builds an event from a decoded JSON object. The type comes first; a
// timestamp is kept as a field; the other members follow in key order so the result is
// deterministic.
func EventFromMap(m map[string]any) Event {
	typ, _ := m["type"].(string)
	ev := Event{Type: typ}
	for _, k := range sortedKeys(m) {
		if k != "type" {
			ev.Fields = append(ev.Fields, Field{Name: k, Value: m[k]})
		}
	}
	return ev
}

// MarshalJSON writes the event as one compact JSON object.
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(nil, -1)
}

// AppendJSON appends the event as a compact JSON object. A timestamp of zero or more is
// written after the type unless the event carries its own timestamp field.
func (e Event) AppendJSON(dst []byte, timestamp int64) ([]byte, error) {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, e.Type)
	if _, has := e.Get("timestamp"); !has && timestamp >= 0 {
		dst = append(dst, `,"timestamp":`...)
		dst = strconv.AppendInt(dst, timestamp, 10)
	}
	for _, f := range e.Fields {
		dst = append(dst, ',')
		dst = appendString(dst, f.Name)
		dst = append(dst, ':')
		var err error
		if e.Order != nil {
			dst, err = appendOrdered(dst, f.Value, e.Order.Member(f.Name))
		} else {
			dst, err = AppendValue(dst, f.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// AppendValue appends a JSON value in compact form, without escaping HTML characters, as
// JavaScript's JSON.stringify does.
func AppendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return appendString(dst, x), nil
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case json.Number:
		return append(dst, x...), nil
	case json.RawMessage:
		return append(dst, x...), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

// appendString quotes s as JSON as JavaScript's JSON.stringify does: without escaping
// HTML characters; invalid UTF-8 becomes U+FFFD, as encoding/json makes it.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
