package protocol

import "testing"

func TestOutcomeOfSaysWhatTheLastEventToldTheClient(t *testing.T) {
	finished := NewEvent(RunFinished, "threadId", "t", "runId", "r")
	tests := []struct {
		name string
		last Event
		want Outcome
	}{
		{"a plain finish, as after on_interrupt in the LangGraph dialect", finished, OutcomeSuccess},
		{"a finish with tool calls pending", finished.With("outcome", map[string]any{"type": "success", "pendingToolCallIds": []any{"c1"}}), OutcomeSuccess},
		{"a finish with an interrupt outcome", finished.With("outcome", map[string]any{"type": "interrupt", "interrupts": []any{map[string]any{"id": "i"}}}), OutcomeInterrupt},
		{"an error", NewEvent(RunError, "message", "boom"), OutcomeError},
		{"no terminal event", NewEvent(Custom, "name", OnInterrupt, "value", "{}"), OutcomeFault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OutcomeOf(tt.last); got != tt.want {
				t.Errorf("OutcomeOf(%+v) = %s, want %s", tt.last, got, tt.want)
			}
		})
	}
}
