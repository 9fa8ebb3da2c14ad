package copilotkit

import (
	"slices"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestAStoppedRunEndsAsAnHttpAgentEndsAnAbortedOne(t *testing.T) {
	ev := Stopped()
	if raw, _ := ev.Get("rawEvent"); ev.Type != protocol.RunError || ev.Str("code") != "abort" || ev.Str("message") != "This operation was aborted" || raw == nil {
		t.Errorf("%+v", ev)
	}
}

func TestAnIncompleteRunIsKeptClosedAsTheRuntimeClosesIt(t *testing.T) {
	played := []protocol.Event{
		protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"),
		protocol.NewEvent(protocol.TextMessageStart, "messageId", "m1", "role", "assistant"),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", "m1", "delta", "hi"),
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "done", "toolCallName", "a"),
		protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", "done"),
		protocol.NewEvent(protocol.ToolCallResult, "toolCallId", "done", "messageId", "x", "content", "ok"),
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "frontend", "toolCallName", "b"),
		protocol.NewEvent(protocol.ToolCallEnd, "toolCallId", "frontend"),
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "open", "toolCallName", "c"),
		protocol.NewEvent(protocol.ReasoningStart, "messageId", "r1"), // the runtime leaves reasoning as it is
	}
	var got []string
	for _, ev := range Incomplete(played) {
		got = append(got, ev.Type+" "+ev.Str("messageId")+ev.Str("toolCallId"))
	}
	want := []string{"TEXT_MESSAGE_END m1", "TOOL_CALL_RESULT frontend-resultfrontend", "TOOL_CALL_END open", "TOOL_CALL_RESULT open-resultopen", "RUN_ERROR "}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if last := Incomplete(played)[len(want)-1]; last.Str("code") != "INCOMPLETE_STREAM" {
		t.Errorf("it ends with %+v", last)
	}
	if got := Incomplete(append(played, protocol.NewEvent(protocol.RunError, "message", "x"))); got != nil {
		t.Errorf("a run that ended needs nothing more, got %v", got)
	}
}

func TestStartedWithInputCarriesTheMessagesTheThreadDidNotHold(t *testing.T) {
	input := map[string]any{"threadId": "t", "runId": "r2", "messages": []any{
		map[string]any{"id": "old", "role": "user", "content": "a"},
		map[string]any{"id": "new", "role": "user", "content": "b"},
	}}
	ev := StartedWithInput(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r2"), input, func(id string) bool { return id == "old" })
	got, _ := ev.Get("input")
	msgs := got.(map[string]any)["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["id"] != "new" {
		t.Errorf("input messages %v", msgs)
	}
	if len(input["messages"].([]any)) != 2 {
		t.Error("the run's input was changed")
	}
	own := protocol.NewEvent(protocol.RunStarted, "input", map[string]any{"threadId": "mine"})
	if kept, _ := StartedWithInput(own, input, func(string) bool { return false }).Get("input"); kept.(map[string]any)["threadId"] != "mine" {
		t.Error("an agent's own input was replaced")
	}
}

func TestThreadMessagesFlattenToolCalls(t *testing.T) {
	got := ThreadMessages([]map[string]any{
		{"id": "u", "role": "user", "content": "hi"},
		{"id": "a", "role": "assistant", "toolCalls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}},
		{"id": "t", "role": "tool", "toolCallId": "c", "content": "ok"},
	})
	call := got[1]["toolCalls"].([]any)[0].(map[string]any)
	if call["name"] != "f" || call["args"] != "{}" || got[1]["content"] != nil || got[2]["toolCallId"] != "c" || got[0]["content"] != "hi" {
		t.Errorf("%v", got)
	}
}

func TestInfoReportsAgentsAndTheThreadEndpointsOfItsTransport(t *testing.T) {
	agents := []Agent{NewAgent("default", ""), NewAgent("researcher", "Finds things")}
	info := Info(agents, false, map[string]any{"a2uiEnabled": true})
	if info["version"] != RuntimeVersion || info["mode"] != "sse" || info["a2uiEnabled"] != true || info["threadEndpoints"].(map[string]any)["list"] != true {
		t.Errorf("%v", info)
	}
	if a := info["agents"].(map[string]any)["researcher"].(Agent); a.Description != "Finds things" || a.ClassName != "HttpAgent" {
		t.Errorf("agent %+v", a)
	}
	envelope := Info(agents, true, nil)
	if envelope["threadEndpoints"].(map[string]any)["list"] != false || envelope["singleRoute"].(map[string]any)["resourceOperations"] != true {
		t.Errorf("through the envelope: %v", envelope)
	}
}
