package protocol

import "testing"

func TestIsStringField(t *testing.T) {
	tests := []struct {
		typ, name string
		want      bool
	}{
		{TextMessageContent, "delta", true},
		{RunStarted, "threadId", true},
		{Custom, "name", true},
		{Custom, "value", false},
		{StateDelta, "delta", false},
		{RunFinished, "result", false},
		{Custom, "subagentRunId", true}, // the envelope's
		{Custom, "timestamp", false},
		{"VENDOR_EVENT", "name", false},
	}
	for _, tt := range tests {
		if got := IsStringField(tt.typ, tt.name); got != tt.want {
			t.Errorf("IsStringField(%s, %s) = %v, want %v", tt.typ, tt.name, got, tt.want)
		}
	}
}
