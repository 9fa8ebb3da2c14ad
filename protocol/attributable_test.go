package protocol_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/internal/spectest"
	"github.com/agui-mock/agui-mock/protocol"
)

// TestAttributableFollowsTheSchema checks protocol.Attributable against the event
// types the official schema composes Attributable into: every one of them, and no other.
func TestAttributableFollowsTheSchema(t *testing.T) {
	want := spectest.AttributableEvents(t)
	for _, typ := range protocol.KnownEventTypes() {
		if got := protocol.Attributable(typ); got != slices.Contains(want, typ) {
			t.Errorf("Attributable(%s) = %v, the schema says %v", typ, got, !got)
		}
	}
	if protocol.Attributable("VENDOR_EVENT") {
		t.Error("an unknown event type is attributable")
	}
}

// A tool call belongs to the message that carries it, as the official client reads a
// stream: its subagentRunId must be its parent message's owner's, the parent agent's
// included; a call without one inherits the message's.
func TestAToolCallBelongsToItsParentMessage(t *testing.T) {
	start := protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r")
	run := func(messageOwner, callOwner string) error {
		text := protocol.NewEvent(protocol.TextMessageStart, "messageId", "m", "role", "assistant")
		call := protocol.NewEvent(protocol.ToolCallStart, "toolCallId", "c", "toolCallName", "f", "parentMessageId", "m")
		var events []protocol.Event
		if messageOwner != "" {
			events = append(events, protocol.NewEvent(protocol.SubagentStarted, "subagentRunId", messageOwner, "name", "a"))
			text = text.With("subagentRunId", messageOwner)
		}
		if callOwner != "" && callOwner != messageOwner {
			events = append(events, protocol.NewEvent(protocol.SubagentStarted, "subagentRunId", callOwner, "name", "b"))
		}
		if callOwner != "" {
			call = call.With("subagentRunId", callOwner)
		}
		events = append(append([]protocol.Event{start}, events...), text, protocol.NewEvent(protocol.TextMessageEnd, "messageId", "m"), call, protocol.NewEvent(protocol.RunError, "message", "over"))
		_, err := protocol.CheckStream(events, "t")
		return err
	}
	for _, tt := range []struct {
		message, call, want string
	}{
		{"", "s1", `subagentRunId "s1" does not match the parent agent, the owner of its parent message "m"`},
		{"s1", "s2", `subagentRunId "s2" does not match "s1", the owner of its parent message "m"`},
		{"s1", "s1", ""},
		{"s1", "", ""},
		{"", "", ""},
	} {
		err := run(tt.message, tt.call)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("message of %q, call of %q: %v, want %q", tt.message, tt.call, err, tt.want)
		}
	}
}
