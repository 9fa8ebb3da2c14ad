package copilotkit

import (
	"encoding/json"
	"slices"

	"github.com/agui-mock/agui-mock/protocol"
)

// StopMessage is what the runtime's stop route says of the run it stopped.
const StopMessage = "Run stopped by user"

// abruptMessage is what the runtime says of a run whose agent's stream ended without a
// terminal event.
const abruptMessage = "Run ended without emitting a terminal event"

// Incomplete returns the events the runtime's runner adds to what it keeps of a run whose
// stream ended without a terminal event (its agent's connection broke, or it ended the
// stream early), events being what the run sent: an end for each text message left open,
// an end and a result for each tool call left without them, then a RUN_ERROR with code
// INCOMPLETE_STREAM; nothing when the run ended. Only text messages and tool calls are
// closed, as the runtime closes them.
func Incomplete(events []protocol.Event) []protocol.Event {
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
			if c := calls[ev.Str("toolCallId")]; c != nil {
				c.ended = c.ended || ev.Type == protocol.ToolCallEnd
				c.resulted = c.resulted || ev.Type == protocol.ToolCallResult
			}
		}
	}
	var out []protocol.Event
	for _, id := range messages {
		out = append(out, protocol.NewEvent(protocol.TextMessageEnd, "messageId", id))
	}
	content, _ := json.Marshal(map[string]any{"status": "error", "reason": "missing_terminal_event", "message": abruptMessage})
	for _, id := range callOrder {
		c := calls[id]
		if !c.ended {
			out = append(out, protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", id))
		}
		if !c.resulted {
			out = append(out, protocol.NewEvent(protocol.ToolCallResult, "toolCallId", id, "messageId", id+"-result", "role", "tool", "content", string(content)))
		}
	}
	return append(out, protocol.NewEvent(protocol.RunError, "message", abruptMessage, "code", "INCOMPLETE_STREAM"))
}

// abortMessage is what Node says of a fetch that was aborted.
const abortMessage = "This operation was aborted"

// Stopped is the event a run stopped through the stop route ends with. The runtime
// aborts its agent's run; an HttpAgent, the agent of a runtime in front of an AG-UI
// agent, ends the run with a RUN_ERROR of code abort, whose message is the abort's and
// whose rawEvent is the abort error as JSON writes it. Nothing is closed first: the
// runtime closes what a run left open only when it ends without a terminal event.
func Stopped() protocol.Event {
	return protocol.NewEvent(protocol.RunError, "message", abortMessage, "code", "abort", "rawEvent", map[string]any{})
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
