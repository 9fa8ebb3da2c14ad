package recorder

import (
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestAnswersRankAsTheLastRunRaisedWhatTheyAnswer(t *testing.T) {
	captured := func(events ...protocol.Event) []capturedEvent {
		out := make([]capturedEvent, len(events))
		for i, ev := range events {
			out[i] = capturedEvent{event: ev}
		}
		return out
	}
	var s session
	s.noteAwaiting(captured(
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "second"),
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "answered"),
		protocol.NewEvent(protocol.ToolCallResult, "toolCallId", "answered"),
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "third"),
		protocol.NewEvent(protocol.RunFinished),
	))
	if s.rank("second") != 0 || s.rank("third") != 1 || s.rank("answered") != 2 || s.rank("unknown") != 2 {
		t.Errorf("tool calls left without a result rank in the order they were made: %v", s.awaiting)
	}
	s.noteAwaiting(captured(
		protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "call"),
		protocol.NewEvent(protocol.RunFinished, "outcome", map[string]any{"type": "interrupt", "interrupts": []any{
			map[string]any{"id": "i2"}, map[string]any{"id": "i1", "toolCallId": "call"},
		}}),
	))
	if s.rank("i2") != 0 || s.rank("i1") != 1 || s.rank("call") != 2 {
		t.Errorf("a run that raised interrupts ranks them alone, in order: %v", s.awaiting)
	}
}
