package protocol

import (
	"reflect"
	"testing"
)

func TestAwaitedReadsInterruptsOrElseToolCallsWithoutResult(t *testing.T) {
	calls := []Event{
		NewEvent(ToolCallStart, "toolCallId", "a", "toolCallName", "pick"),
		NewEvent(ToolCallStart, "toolCallId", "b", "toolCallName", "confirm"),
		NewEvent(ToolCallResult, "toolCallId", "a", "content", "done"),
		NewEvent(ToolCallStart, "toolCallId", "c", "toolCallName", "pick"),
	}
	same := func(ev Event) Event { return ev }

	interrupts, toolCalls := Awaited(append(calls, NewEvent(RunFinished)), same)
	if interrupts != nil || len(toolCalls) != 2 || toolCalls[0].Str("toolCallId") != "b" || toolCalls[1].Str("toolCallId") != "c" {
		t.Errorf("tool calls without a result, in order: %v %v", interrupts, toolCalls)
	}

	wire := map[string]any{"id": "i1", "reason": "approval"}
	finished := NewEvent(RunFinished, "outcome", map[string]any{"type": "interrupt", "interrupts": []any{wire, "not an object"}})
	interrupts, toolCalls = Awaited(append(calls, finished), same)
	if !reflect.DeepEqual(interrupts, []map[string]any{wire}) || toolCalls != nil {
		t.Errorf("a run that raised interrupts waits for them alone: %v %v", interrupts, toolCalls)
	}

	if interrupts, toolCalls := Awaited([]Event{NewEvent(RunStarted), NewEvent(RunFinished)}, same); interrupts != nil || toolCalls != nil {
		t.Errorf("a finished run waits for nothing: %v %v", interrupts, toolCalls)
	}
}
