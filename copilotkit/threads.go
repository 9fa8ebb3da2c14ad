package copilotkit

import (
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// ThreadRecord is a thread as GET /threads lists it: the shape of a CopilotKit
// Intelligence thread, which the in-memory runner fills with what it knows.
type ThreadRecord struct {
	ID             string  `json:"id"`
	Name           *string `json:"name"`
	AgentID        string  `json:"agentId"`
	OrganizationID string  `json:"organizationId"`
	CreatedByID    string  `json:"createdById"`
	Archived       bool    `json:"archived"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

// NewThreadRecord is a thread of an agent, created and last run at the given times.
func NewThreadRecord(id, agent string, created, updated time.Time) ThreadRecord {
	return ThreadRecord{ID: id, AgentID: agent, CreatedAt: isoTime(created), UpdatedAt: isoTime(updated)}
}

// isoTime writes a time as JavaScript's Date.toISOString does.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ThreadMessages is a thread's messages as GET /threads/:id/messages answers them: an
// assistant message's tool calls flattened to {id, name, args}, a tool message with its
// toolCallId, any other message with its id, role and content alone.
func ThreadMessages(messages []map[string]any) []map[string]any {
	out := make([]map[string]any, 0, len(messages))
	for _, m := range messages {
		mapped := map[string]any{"id": m["id"], "role": m["role"]}
		switch m["role"] {
		case "assistant":
			if c, ok := m["content"]; ok && c != nil {
				mapped["content"] = c
			}
			calls, _ := m["toolCalls"].([]any)
			if len(calls) > 0 {
				flat := make([]any, 0, len(calls))
				for _, c := range calls {
					c, _ := c.(map[string]any)
					fn, _ := c["function"].(map[string]any)
					flat = append(flat, map[string]any{"id": c["id"], "name": fn["name"], "args": fn["arguments"]})
				}
				mapped["toolCalls"] = flat
			}
		case "tool":
			mapped["content"], mapped["toolCallId"] = m["content"], m["toolCallId"]
		default:
			if c, ok := m["content"]; ok && c != nil {
				mapped["content"] = c
			}
		}
		out = append(out, mapped)
	}
	return out
}

// ThreadState is a thread's state as GET /threads/:id/state answers it, from its
// compacted events: the object of the last STATE_SNAPSHOT, nil when there is none or it
// is not an object.
func ThreadState(events []protocol.Event) any {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == protocol.StateSnapshot {
			snapshot, _ := events[i].Get("snapshot")
			if obj, ok := snapshot.(map[string]any); ok {
				return obj
			}
			return nil
		}
	}
	return nil
}
