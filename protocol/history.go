package protocol

import (
	"encoding/json"
	"fmt"

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

// find returns the index of the message with the given id, or -1.
func (c *Conversation) find(id string) int {
	for i, m := range c.Messages {
		if m["id"] == id {
			return i
		}
	}
	return -1
}

// message returns the message with the given id, or nil.
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

// cloneValue deep-copies a JSON value.
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
