package protocol

import "slices"

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
