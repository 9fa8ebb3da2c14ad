package protocol

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestCompactEventsJoinsDeltasAndFoldsState(t *testing.T) {
	events := []Event{
		NewEvent(RunStarted, "threadId", "t", "runId", "r1"),
		NewEvent(StateSnapshot, "snapshot", map[string]any{"n": 1}),
		NewEvent(TextMessageStart, "messageId", "m1", "role", "assistant"),
		NewEvent(TextMessageContent, "messageId", "m1", "delta", "Hel"),
		NewEvent(Custom, "name", "during", "value", 1), // came while m1 was open: after its end
		NewEvent(TextMessageContent, "messageId", "m1", "delta", "lo"),
		NewEvent(TextMessageEnd, "messageId", "m1"),
		NewEvent(ToolCallStart, "toolCallId", "c1", "toolCallName", "f"),
		NewEvent(ToolCallArgs, "toolCallId", "c1", "delta", `{"a":`),
		NewEvent(ToolCallArgs, "toolCallId", "c1", "delta", `1}`),
		NewEvent(ToolCallEnd, "toolCallId", "c1"),
		NewEvent(StateDelta, "delta", []any{map[string]any{"op": "replace", "path": "/n", "value": 2}}),
		NewEvent(StateDelta, "delta", []any{map[string]any{"op": "remove", "path": "/missing"}}), // does not apply: left out
		NewEvent(RunFinished, "threadId", "t", "runId", "r1"),
	}
	got := CompactEvents(events)
	var kinds []string
	for _, ev := range got {
		kinds = append(kinds, ev.Type)
	}
	want := []string{RunStarted, TextMessageStart, TextMessageContent, TextMessageEnd, Custom, ToolCallStart, ToolCallArgs, ToolCallEnd, StateSnapshot, RunFinished}
	if !slices.Equal(kinds, want) {
		t.Fatalf("%v, want %v", kinds, want)
	}
	if got[2].Str("delta") != "Hello" || got[6].Str("delta") != `{"a":1}` {
		t.Errorf("deltas %q %q", got[2].Str("delta"), got[6].Str("delta"))
	}
	if snapshot, _ := got[8].Get("snapshot"); snapshot.(map[string]any)["n"] != json.Number("2") {
		t.Errorf("state %v", snapshot)
	}
}

func TestCompactEventsClosesWhatAStreamLeftOpenInPlace(t *testing.T) {
	got := CompactEvents([]Event{
		NewEvent(RunStarted, "threadId", "t", "runId", "r1"),
		NewEvent(TextMessageStart, "messageId", "m1", "role", "assistant"),
		NewEvent(TextMessageContent, "messageId", "m1", "delta", "cut"),
	})
	if len(got) != 3 || got[1].Type != TextMessageStart || got[2].Str("delta") != "cut" {
		t.Errorf("%+v", got)
	}
}
