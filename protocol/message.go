package protocol

import "strings"

// Message is one conversation message of any role.
type Message struct {
	ID         string
	Role       string
	Name       string
	ToolCallID string
	Content    any // a string, a list of content parts ([]any of map[string]any), or nil
	Raw        map[string]any
}

// Text returns the message's text: the string content, or its text parts joined by a
// newline.
func (m Message) Text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok && pm["type"] == "text" {
				if s, ok := pm["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// ToolCall is a tool call of an assistant message.
type ToolCall struct {
	ID, Name  string
	Arguments string // JSON, as the message holds it
}

// ToolCalls lists the tool calls of an assistant message, as the message holds them.
func (m Message) ToolCalls() []ToolCall {
	list, _ := m.Raw["toolCalls"].([]any)
	calls := make([]ToolCall, 0, len(list))
	for _, c := range list {
		c, _ := c.(map[string]any)
		fn, _ := c["function"].(map[string]any)
		call := ToolCall{}
		call.ID, _ = c["id"].(string)
		call.Name, _ = fn["name"].(string)
		call.Arguments, _ = fn["arguments"].(string)
		calls = append(calls, call)
	}
	return calls
}
