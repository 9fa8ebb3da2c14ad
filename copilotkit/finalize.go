package copilotkit

import (
	"encoding/json"
	"slices"

	"github.com/agui-mock/agui-mock/protocol"
)

// StopMessage is what the runtime says of a run stopped through its stop route.
const StopMessage = "Run stopped by user"

// abruptMessage is what the runtime says of a run whose agent's stream ended without a
// terminal event.
const abruptMessage = "Run ended without emitting a terminal event"

// Finalize returns the events the runtime's runner appends to a run whose agent's
// stream ended without a terminal event, events being what the run sent: an end for each
// text message left open, an end and a result for each tool call left without them
// (the result says the call stopped), and then a bare RUN_FINISHED when the run was
// stopped, else a RUN_ERROR with code INCOMPLETE_STREAM. Nothing when the run had ended.
// Only text messages and tool calls are closed, as the runtime closes them.
func Finalize(events []protocol.Event, stopped bool) []protocol.Event {
	var messages []string // open, in the order they opened
	type call struct{ ended, resulted bool }
	calls := map[string]*call{}
	var callOrder []string
	for _, ev := range events {
		switch ev.Type {
		case protocol.RunFinished, protocol.RunError:
			return nil
		case protocol.TextMessageStart:
			if id := ev.Str("messageId"); id != "" && !slices.Contains(messages, id) {
				messages = append(messages, id)
			}
		case protocol.TextMessageEnd:
			messages = slices.DeleteFunc(messages, func(id string) bool { return id == ev.Str("messageId") })
		case protocol.ToolCallStart:
			if id := ev.Str("toolCallId"); id != "" && calls[id] == nil {
				calls[id] = &call{}
				callOrder = append(callOrder, id)
			}
		case protocol.ToolCallEnd, protocol.ToolCallResult:
			c := calls[ev.Str("toolCallId")]
			if c == nil {
				continue
			}
			if ev.Type == protocol.ToolCallEnd {
				c.ended = true
			} else {
				c.resulted = true
			}
			if c.ended && c.resulted {
				delete(calls, ev.Str("toolCallId"))
			}
		}
	}
	var out []protocol.Event
	for _, id := range messages {
		out = append(out, protocol.NewEvent(protocol.TextMessageEnd, "messageId", id))
	}
	status := map[string]any{"status": "error", "reason": "missing_terminal_event", "message": abruptMessage}
	if stopped {
		status = map[string]any{"status": "stopped", "reason": "stop_requested", "message": StopMessage}
	}
	content, _ := json.Marshal(status)
	for _, id := range callOrder {
		c := calls[id]
		if c == nil {
			continue
		}
		if !c.ended {
			out = append(out, protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", id))
		}
		if !c.resulted {
			out = append(out, protocol.NewEvent(protocol.ToolCallResult, "toolCallId", id, "messageId", id+"-result", "role", "tool", "content", string(content)))
		}
	}
	if stopped {
		return append(out, protocol.NewEvent(protocol.RunFinished))
	}
	return append(out, protocol.NewEvent(protocol.RunError, "message", abruptMessage, "code", "INCOMPLETE_STREAM"))
}

// StartedWithInput is a RUN_STARTED event as the runtime's runner relays and keeps it:
// with the run's input, whose messages are only those the thread did not hold before
// (historic says which it held), unless the agent sent an input of its own.
func StartedWithInput(ev protocol.Event, input map[string]any, historic func(id string) bool) protocol.Event {
	if _, has := ev.Get("input"); has || ev.Type != protocol.RunStarted {
		return ev
	}
	with := make(map[string]any, len(input))
	for k, v := range input {
		with[k] = v
	}
	if list, ok := input["messages"].([]any); ok {
		fresh := make([]any, 0, len(list))
		for _, m := range list {
			id, _ := m.(map[string]any)["id"].(string)
			if !historic(id) {
				fresh = append(fresh, m)
			}
		}
		with["messages"] = fresh
	}
	return ev.With("input", with)
}
