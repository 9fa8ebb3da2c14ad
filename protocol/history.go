package protocol

import (
	"encoding/json"
	"fmt"
	"strconv"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// Conversation is a thread's messages and state as the official client holds them: it
// applies events the way @ag-ui/client's default reducer does, so a server-side history
// agrees with what the frontend shows.
type Conversation struct {
	Messages []map[string]any
	State    any
	// streaming collects the deltas of messages being streamed, so that a long message
	// costs a copy once, not once per delta; Settle writes them into Messages.
	// A run streams a message or a few at a time: a list, searched in order, costs less
	// than a map.
	streaming []streamedText
	streams   StreamTracker // which message or call each chunk continues
}

// streamedText is the text streamed to a message since the conversation last settled.
type streamedText struct {
	id   string
	text []byte
}

// Settle writes streamed text into the messages. Call it before reading Messages.
func (c *Conversation) Settle() {
	for _, st := range c.streaming {
		if m := c.message(st.id); m != nil {
			text, _ := m["content"].(string)
			m["content"] = text + string(st.text)
		}
	}
	c.streaming = nil
}

// streamed returns the text streamed to message id since the last Settle, or nil.
func (c *Conversation) streamed(id string) *streamedText {
	for i := range c.streaming {
		if c.streaming[i].id == id {
			return &c.streaming[i]
		}
	}
	return nil
}

// AddInput brings a run input's messages into the conversation. An input that carries
// a message of the agent's (see CarriesHistory) is the client's whole conversation, as
// AG-UI clients send it, and replaces what the conversation held: a client that gives
// the agent's messages ids of its own sees no turn twice. Only activity messages stay,
// each after as many of the other messages as before it, since clients keep them and
// leave them out of what they send (@ag-ui/client does). An input that carries none
// brings the new turn alone (a user message, tool results), as some clients send it:
// its messages are appended, those whose id is already held left alone. The input's
// state, when present, becomes the baseline for the run's deltas.
func (c *Conversation) AddInput(in *RunAgentInput) {
	held := c.Messages
	if CarriesHistory(in) {
		c.Messages = make([]map[string]any, 0, len(in.Messages))
	}
	for _, m := range in.Messages {
		if c.find(m.ID) < 0 {
			c.Messages = append(c.Messages, CloneObject(m.Raw))
		}
	}
	if CarriesHistory(in) {
		c.Messages = keepActivities(held, c.Messages)
	}
	if in.State != nil {
		c.State = in.State
	}
}

// keepActivities puts the activity messages of held into sent, each after as many
// messages of sent as held has other messages before it; one that sent holds is not
// repeated.
func keepActivities(held, sent []map[string]any) []map[string]any {
	ids := make(map[any]bool, len(sent))
	for _, m := range sent {
		ids[m["id"]] = true
	}
	out := make([]map[string]any, 0, len(sent))
	others, next := 0, 0
	for _, m := range held {
		if m["role"] != "activity" {
			others++
			continue
		}
		for ; next < min(others, len(sent)); next++ {
			out = append(out, sent[next])
		}
		if !ids[m["id"]] {
			out = append(out, m)
		}
	}
	return append(out, sent[next:]...)
}

// CarriesHistory reports whether a run input carries the conversation so far, not only
// the new turn: it holds a message of the agent's, of role assistant, reasoning or
// activity, which only a client that resends what the agent said can hold.
func CarriesHistory(in *RunAgentInput) bool {
	for _, m := range in.Messages {
		switch m.Role {
		case "assistant", "reasoning", "activity":
			return true
		}
	}
	return false
}

func (c *Conversation) find(id string) int {
	for i, m := range c.Messages {
		if m["id"] == id {
			return i
		}
	}
	return -1
}

func (c *Conversation) message(id string) map[string]any {
	if i := c.find(id); i >= 0 {
		return c.Messages[i]
	}
	return nil
}

// Apply folds one event into the conversation. Like the client, it expands chunks into
// the start and content of the stream they open or continue, ignores events that name
// unknown messages and keeps the old state when a patch does not apply; the error it
// returns says what was ignored.
func (c *Conversation) Apply(ev Event) error {
	if key, s, isDelta := c.streams.Next(ev); isDelta && s.Chunk {
		return c.applyChunk(ev, s, key)
	}
	return c.apply(ev)
}

// applyChunk folds a chunk in as the client expands it: its stream's start event when
// the message or tool call is not there yet, then its delta as the stream's content.
func (c *Conversation) applyChunk(ev Event, chunk StreamedType, key StreamKey) error {
	content := contentOf(chunk.Family)
	if key.ID == "" {
		return fmt.Errorf("%s: no %s, and no stream open to continue", ev.Type, chunk.IDField)
	}
	opened := c.message(key.ID) != nil
	if chunk.Family == ToolArgsStream {
		opened = c.toolCall(key.ID) != nil
	}
	if !opened {
		start := NewEvent(content.Start, content.IDField, key.ID)
		for _, name := range []string{"role", "name", "toolCallName", "parentMessageId"} {
			if v := ev.Str(name); v != "" {
				start = start.With(name, v)
			}
		}
		if chunk.Family == ReasoningStream {
			start = start.With("role", "reasoning")
		}
		if err := c.apply(start); err != nil {
			return err
		}
	}
	delta, ok := ev.Get(chunk.DeltaField)
	if !ok {
		return nil
	}
	return c.apply(NewEvent(content.Type, content.IDField, key.ID, content.DeltaField, delta))
}

// apply folds in one event of the expanded form.
func (c *Conversation) apply(ev Event) error {
	switch ev.Type {
	case TextMessageContent, ReasoningMessageContent, TextMessageStart, ReasoningMessageStart:
	default:
		c.Settle() // other events may replace or read messages
	}
	switch ev.Type {
	case TextMessageStart, ReasoningMessageStart:
		id := ev.Str("messageId")
		if c.message(id) == nil {
			role := ev.StrValue("role")
			if role == "" {
				role = "assistant"
			}
			m := map[string]any{"id": ev.StrValue("messageId"), "role": role, "content": ""}
			if name := ev.Str("name"); name != "" {
				m["name"] = name
			}
			c.Messages = append(c.Messages, m)
		}
	case TextMessageContent, ReasoningMessageContent:
		id := ev.Str("messageId")
		st := c.streamed(id)
		if st == nil {
			if c.message(id) == nil {
				return fmt.Errorf("%s: no message %q", ev.Type, id)
			}
			c.streaming = append(c.streaming, streamedText{id: id})
			st = &c.streaming[len(c.streaming)-1]
		}
		st.text = append(st.text, ev.Str("delta")...)
	case ToolCallStart:
		c.startToolCall(ev)
	case ToolCallArgs:
		call := c.toolCall(ev.Str("toolCallId"))
		if call == nil {
			return fmt.Errorf("%s: no tool call %q", ev.Type, ev.Str("toolCallId"))
		}
		fn := call["function"].(map[string]any)
		args, _ := fn["arguments"].(string)
		fn["arguments"] = args + ev.Str("delta")
	case ToolCallResult:
		c.addToolResult(ev)
	case StateSnapshot:
		c.State, _ = ev.Get("snapshot")
	case StateDelta:
		delta, _ := ev.Get("delta")
		if c.State == nil {
			c.State = map[string]any{} // a client's state starts empty
		}
		next, err := ApplyPatch(c.State, delta)
		if err != nil {
			return fmt.Errorf("%s: %w", ev.Type, err)
		}
		c.State = next
	case MessagesSnapshot:
		c.applySnapshot(ev)
	case ActivitySnapshot:
		c.applyActivity(ev)
	case ActivityDelta:
		m := c.message(ev.Str("messageId"))
		if m == nil || m["role"] != "activity" {
			return nil // the client ignores deltas for unknown activities
		}
		patch, _ := ev.Get("patch")
		next, err := ApplyPatch(m["content"], patch)
		if err != nil {
			return fmt.Errorf("%s: %w", ev.Type, err)
		}
		m["content"] = next
		m["activityType"] = ev.Str("activityType")
	case ReasoningEncryptedValue:
		c.applyEncryptedValue(ev)
	}
	return nil
}

func (c *Conversation) toolCall(id string) map[string]any {
	for _, m := range c.Messages {
		calls, _ := m["toolCalls"].([]any)
		for _, tc := range calls {
			if call, ok := tc.(map[string]any); ok && call["id"] == id {
				return call
			}
		}
	}
	return nil
}

// startToolCall attaches a new call to its parent assistant message, creating one when
// the parent is missing, as the client does.
func (c *Conversation) startToolCall(ev Event) {
	id, name := ev.Str("toolCallId"), ev.Str("toolCallName")
	if call := c.toolCall(id); call != nil {
		call["function"].(map[string]any)["name"] = name
		return
	}
	parentID := ev.Str("parentMessageId")
	var owner map[string]any
	if parentID != "" {
		if m := c.message(parentID); m != nil && m["role"] == "assistant" {
			owner = m
		} else if m != nil {
			parentID = id
		}
	} else {
		parentID = id
	}
	if owner == nil {
		owner = map[string]any{"id": parentID, "role": "assistant", "toolCalls": []any{}}
		c.Messages = append(c.Messages, owner)
	}
	calls, _ := owner["toolCalls"].([]any)
	owner["toolCalls"] = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": ""}})
}

// addToolResult inserts the tool message right after the assistant message that made the
// call and its earlier results.
func (c *Conversation) addToolResult(ev Event) {
	content, _ := ev.Get("content")
	role := ev.Str("role")
	if role == "" {
		role = "tool"
	}
	msg := map[string]any{"id": ev.Str("messageId"), "toolCallId": ev.Str("toolCallId"), "role": role, "content": content}
	for i, m := range c.Messages {
		if m["role"] != "assistant" {
			continue
		}
		calls, _ := m["toolCalls"].([]any)
		for _, tc := range calls {
			if call, _ := tc.(map[string]any); call["id"] == ev.Str("toolCallId") {
				at := i + 1
				for at < len(c.Messages) && c.Messages[at]["role"] == "tool" {
					at++
				}
				c.Messages = append(c.Messages[:at], append([]map[string]any{msg}, c.Messages[at:]...)...)
				return
			}
		}
	}
	c.Messages = append(c.Messages, msg)
}

// applySnapshot replaces messages by id, drops those the snapshot lacks (keeping activity
// and reasoning messages when the snapshot has none of that role) and appends new ones.
func (c *Conversation) applySnapshot(ev Event) {
	raw, _ := ev.Get("messages")
	list, _ := raw.([]any)
	byID := map[string]map[string]any{}
	hasRole := map[any]bool{}
	var order []map[string]any
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			id, _ := m["id"].(string)
			byID[id] = CloneObject(m)
			hasRole[m["role"]] = true
			order = append(order, byID[id])
		}
	}
	kept := c.Messages[:0:0]
	held := map[any]bool{}
	for _, m := range c.Messages {
		id, _ := m["id"].(string)
		if s, ok := byID[id]; ok {
			kept = append(kept, s)
			held[id] = true
		} else if (m["role"] == "activity" || m["role"] == "reasoning") && !hasRole[m["role"]] {
			kept = append(kept, m)
		}
	}
	for _, m := range order {
		if !held[m["id"]] {
			kept = append(kept, m)
		}
	}
	c.Messages = kept
}

func (c *Conversation) applyActivity(ev Event) {
	id := ev.Str("messageId")
	content, _ := ev.Get("content")
	fresh := map[string]any{"id": id, "role": "activity", "activityType": ev.Str("activityType"), "content": content}
	i := c.find(id)
	if i < 0 {
		c.Messages = append(c.Messages, fresh)
		return
	}
	if replace, ok := ev.Get("replace"); ok && replace == false {
		return
	}
	c.Messages[i] = fresh
}

func (c *Conversation) applyEncryptedValue(ev Event) {
	target := c.message(ev.Str("entityId"))
	if ev.Str("subtype") == "tool-call" {
		target = c.toolCall(ev.Str("entityId"))
	}
	if target != nil {
		target["encryptedValue"] = ev.Str("encryptedValue")
	}
}

// ApplyPatch applies a JSON Patch (RFC 6902) to a JSON value atomically: on failure the
// document is returned unchanged with the error.
func ApplyPatch(doc, patch any) (any, error) {
	docJSON, err := json.Marshal(doc)
	if err != nil {
		return doc, err
	}
	opsJSON, err := json.Marshal(patch)
	if err != nil {
		return doc, err
	}
	p, err := jsonpatch.DecodePatch(opsJSON)
	if err != nil {
		return doc, fmt.Errorf("invalid JSON Patch: %w", err)
	}
	out, err := p.Apply(docJSON)
	if err != nil {
		return doc, fmt.Errorf("the patch does not apply: %w", err)
	}
	next, err := DecodeJSON(out)
	if err != nil {
		return doc, err
	}
	return next, nil
}

// CloneObject deep-copies a JSON object, so applying events never changes the input and
// readers of a history never see it change.
func CloneObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return CloneObject(x)
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = cloneValue(it)
		}
		return out
	}
	return v // strings, numbers, booleans and null are immutable
}

// Awaited reads what a run waits for from its events: the interrupts of its
// RUN_FINISHED outcome, as sent, or when it has none, those it raised in the LangGraph
// dialect, as on_interrupt custom events (see LegacyInterrupt); when it raised no
// interrupt, the TOOL_CALL_START events of the tool calls it left without a result. Each
// list is in the order the run raised its items.
func Awaited[T any](events []T, eventOf func(T) Event) (interrupts []map[string]any, toolCalls []Event) {
	answered := map[string]bool{}
	var starts []Event
	var legacy []map[string]any
	for _, item := range events {
		ev := eventOf(item)
		switch ev.Type {
		case ToolCallStart:
			starts = append(starts, ev)
		case ToolCallResult:
			answered[ev.Str("toolCallId")] = true
		case Custom:
			if ev.Str("name") == OnInterrupt {
				value, _ := ev.Get("value")
				legacy = append(legacy, LegacyInterrupt(value, len(legacy)))
			}
		case RunFinished:
			list, _ := ev.Outcome()["interrupts"].([]any)
			for _, item := range list {
				if wire, ok := item.(map[string]any); ok {
					interrupts = append(interrupts, wire)
				}
			}
		}
	}
	if len(interrupts) == 0 {
		interrupts = legacy
	}
	if len(interrupts) > 0 {
		return interrupts, nil
	}
	for _, start := range starts {
		if !answered[start.Str("toolCallId")] {
			toolCalls = append(toolCalls, start)
		}
	}
	return nil, toolCalls
}

// OnInterrupt is the name of the custom event a LangGraph agent raises an interrupt
// with, in the dialect CopilotKit calls legacy: its value is the interrupt's value, a
// JSON string or a string, and the run then finishes without an interrupt outcome.
const OnInterrupt = "on_interrupt"

// LegacyInterrupt reads the value of the index-th on_interrupt event of a run as an
// interrupt, in the form a RUN_FINISHED outcome lists it. A value that is (or holds as
// a JSON string) an object with a string id is taken as it is: agui-mock sends its
// interrupts so. Any other value gets the id on_interrupt-<n> and keeps the value it was
// raised with under value; its message is the value when that is a string, or the
// value's message member.
func LegacyInterrupt(value any, index int) map[string]any {
	decoded := jsonInString(value)
	obj, _ := decoded.(map[string]any)
	if _, hasID := obj["id"].(string); hasID {
		return obj
	}
	wire := map[string]any{"id": "on_interrupt-" + strconv.Itoa(index+1), "reason": "langgraph:interrupt", "value": value}
	if s, ok := decoded.(string); ok {
		wire["message"] = s
	} else if s, ok := obj["message"].(string); ok {
		wire["message"] = s
	}
	return wire
}

// Freeze settles the conversation and returns it as JSON, to keep while no run streams on
// it: bytes the garbage collector need not walk, where its values are objects it would
// trace on every collection. Thaw reads it back into equal values, numbers as
// json.Number. Objects' members come in no particular order: frozen bytes are for
// reading back, never for a client or a file.
func (c *Conversation) Freeze() ([]byte, error) {
	c.Settle()
	dst := append(make([]byte, 0, 256), `{"messages":[`...)
	var err error
	for i, m := range c.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendKept(dst, m); err != nil {
			return nil, fmt.Errorf("freezing the conversation: %w", err)
		}
	}
	dst = append(dst, `],"state":`...)
	if dst, err = appendKept(dst, c.State); err != nil {
		return nil, fmt.Errorf("freezing the conversation: %w", err)
	}
	return append(dst, '}'), nil
}

// Thaw returns the conversation Freeze wrote. Bytes of any other source are a
// programming error, and it panics on them.
func Thaw(frozen []byte) Conversation {
	v, err := DecodeJSON(frozen)
	if err != nil {
		panic("thawing a conversation that Freeze did not write: " + err.Error())
	}
	doc, _ := v.(map[string]any)
	list, _ := doc["messages"].([]any)
	c := Conversation{State: doc["state"]}
	if len(list) > 0 {
		c.Messages = make([]map[string]any, 0, len(list))
		for _, m := range list {
			if m, ok := m.(map[string]any); ok {
				c.Messages = append(c.Messages, m)
			}
		}
	}
	return c
}

// appendKept appends v as JSON, objects' members in map order: the values a
// conversation holds, read by Freeze in one pass; any other through AppendValue.
func appendKept(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case map[string]any:
		dst = append(dst, '{')
		first := true
		for k, item := range x {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(appendString(dst, k), ':')
			if dst, err = appendKept(dst, item); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		for i, item := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendKept(dst, item); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return AppendValue(dst, v)
}
