package copilotkit

import "github.com/agui-mock/agui-mock/protocol"

// StopMessage is what the runtime's stop route says of the run it stopped.
const StopMessage = "Run stopped by user"

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
