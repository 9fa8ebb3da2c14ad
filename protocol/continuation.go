package protocol

import (
	"slices"
	"strconv"
)

// ToolResults maps the tool call ids of a run input's tool messages to their text; a
// call answered twice maps to its later answer.
func ToolResults(in *RunAgentInput) map[string]string {
	results := map[string]string{}
	for _, m := range in.Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text()
		}
	}
	return results
}

// IsContinuation reports whether a run input continues its thread's previous run, which
// left the frontend tool calls with ids pendingToolCalls waiting for a result: the input
// answers interrupts (resume, or a LangGraph command's resume), or brings a tool message
// for every one of those calls and no user message after them. An input that brings
// neither starts afresh, even when it ends with a tool message: that message answers an
// earlier call, and the previous run waits for nothing it brings. So does one whose user
// spoke again after the results: the agent reads that as a new turn of the conversation,
// which is what distinguishes its run, not the results alone.
func IsContinuation(in *RunAgentInput, pendingToolCalls []string) bool {
	if len(in.Resume) > 0 || in.Command != nil {
		return true
	}
	if len(pendingToolCalls) == 0 {
		return false
	}
	answered := 0
	for _, m := range in.Messages {
		switch {
		case m.Role == "tool" && slices.Contains(pendingToolCalls, m.ToolCallID):
			answered++
		case m.Role == "user" && answered > 0:
			return false
		}
	}
	results := ToolResults(in)
	for _, id := range pendingToolCalls {
		if _, ok := results[id]; !ok {
			return false
		}
	}
	return true
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
