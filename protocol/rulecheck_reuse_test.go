package protocol

import (
	"strings"
	"testing"
)

// A checker reused for another stream is a new one: nothing the last stream opened,
// started or was warned of carries over.
func TestAReusedRuleCheckerChecksAsANewOne(t *testing.T) {
	var v RuleChecker
	v.ThreadID = "t"
	for _, ev := range []Event{
		NewEvent(RunStarted, "threadId", "t", "runId", "r1"),
		NewEvent(TextMessageStart, "messageId", "m", "role", "assistant"),
		NewEvent(ToolCallStart, "toolCallId", "c", "toolCallName", "lookup", "subagentRunId", "s"),
		NewEvent("NOT_AN_EVENT"),
	} {
		_ = v.Track(ev) // a stream cut short: its message and call stay open
	}
	v.Reuse()
	if v.ThreadID != "" || len(v.Warnings) != 0 || len(v.Closers()) != 0 {
		t.Fatalf("reused: thread %q, warnings %v, closers %v", v.ThreadID, v.Warnings, v.Closers())
	}
	if err := v.Track(NewEvent(TextMessageContent, "messageId", "m", "delta", "x")); err == nil || !strings.Contains(err.Error(), "First event must be 'RUN_STARTED'") {
		t.Errorf("the reused checker took an event before RUN_STARTED: %v", err)
	}
	v.Reuse()
	for _, ev := range []Event{
		NewEvent(RunStarted, "threadId", "t2", "runId", "r2"),
		NewEvent(TextMessageStart, "messageId", "m", "role", "assistant"), // the id the last stream left open
		NewEvent(ToolCallStart, "toolCallId", "c", "toolCallName", "lookup"),
		NewEvent(ToolCallEnd, "toolCallId", "c"),
		NewEvent(TextMessageEnd, "messageId", "m"),
		NewEvent(RunFinished, "threadId", "t2", "runId", "r2"),
	} {
		if err := v.Track(ev); err != nil {
			t.Errorf("%s: %v", ev.Type, err)
		}
	}
}
