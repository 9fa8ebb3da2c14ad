package protocol

import (
	"encoding/json"
	"reflect"
	"slices"
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

func TestCancelledKnowsBothFormsOfACancelledRun(t *testing.T) {
	for _, tt := range []struct {
		ev   Event
		want bool
	}{
		{NewEvent(RunFinished, "outcome", map[string]any{"type": "cancelled"}), true},
		{NewEvent(RunError, "message", "Run cancelled", "code", "cancelled"), true},
		{NewEvent(RunFinished, "outcome", map[string]any{"type": "success"}), false},
		{NewEvent(RunFinished), false},
		{NewEvent(RunError, "message", "boom", "code", "upstream_error"), false},
		{NewEvent(TextMessageEnd, "code", "cancelled"), false},
	} {
		if got := tt.ev.Cancelled(); got != tt.want {
			t.Errorf("%v: Cancelled() = %v", tt.ev, got)
		}
	}
	// the 0.0.x form of a cancelled run is what the legacy peer turns the 1.x form into
	legacy, _ := PeerFor("").Adapt(NewEvent(RunFinished, "outcome", map[string]any{"type": "cancelled"}))
	if !legacy.Cancelled() {
		t.Errorf("the 0.0.x form %v is not seen as cancelled", legacy)
	}
}

func TestIsContinuation(t *testing.T) {
	tool := func(id string) Message { return Message{Role: "tool", ToolCallID: id, Content: "ok"} }
	user := Message{Role: "user", Content: "and now?"}
	for _, tt := range []struct {
		name    string
		in      RunAgentInput
		pending []string
		want    bool
	}{
		{"resume answers interrupts", RunAgentInput{Resume: []ResumeEntry{{InterruptID: "i1", Status: ResumeResolved}}}, nil, true},
		{"every pending call answered", RunAgentInput{Messages: []Message{tool("a"), tool("b")}}, []string{"b", "a"}, true},
		{"one pending call unanswered", RunAgentInput{Messages: []Message{tool("a")}}, []string{"a", "b"}, false},
		{"nothing pending, nothing answered", RunAgentInput{Messages: []Message{user}}, nil, false},
		// The user spoke again after the results: a new turn, whatever the results answer.
		{"results followed by a user message", RunAgentInput{Messages: []Message{tool("a"), user}}, []string{"a"}, false},
		{"a user message before the results", RunAgentInput{Messages: []Message{user, tool("a")}}, []string{"a"}, true},
		{"a tool message answering an earlier call", RunAgentInput{Messages: []Message{tool("old")}}, nil, false},
	} {
		if got := IsContinuation(&tt.in, tt.pending); got != tt.want {
			t.Errorf("%s: IsContinuation = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAwaitedReadsOnInterruptEventsWhenTheOutcomeHasNone(t *testing.T) {
	events := []Event{
		NewEvent(RunStarted, "threadId", "t", "runId", "r"),
		NewEvent(Custom, "name", OnInterrupt, "value", `{"id":"i1","message":"Go?"}`),
		NewEvent(Custom, "name", OnInterrupt, "value", "Name?"),
		NewEvent(Custom, "name", OnInterrupt, "value", map[string]any{"question": "Why?", "message": "Why?"}),
		NewEvent(RunFinished, "threadId", "t", "runId", "r"),
	}
	got, _ := Awaited(events, func(e Event) Event { return e })
	want := []map[string]any{
		{"id": "i1", "message": "Go?"},
		{"id": "on_interrupt-2", "reason": "langgraph:interrupt", "message": "Name?", "value": "Name?"},
		{"id": "on_interrupt-3", "reason": "langgraph:interrupt", "message": "Why?", "value": map[string]any{"question": "Why?", "message": "Why?"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// an interrupt outcome is what the run waits for, whatever else it sent
	events[4] = events[4].With("outcome", map[string]any{"type": "interrupt", "interrupts": []any{map[string]any{"id": "std"}}})
	if got, _ := Awaited(events, func(e Event) Event { return e }); len(got) != 1 || got[0]["id"] != "std" {
		t.Errorf("with an interrupt outcome: got %v", got)
	}
}

func TestAnInputThatCarriesTheConversationReplacesWhatWasHeld(t *testing.T) {
	msg := func(id, role, content string) Message {
		return Message{ID: id, Role: role, Content: content, Raw: map[string]any{"id": id, "role": role, "content": content}}
	}
	conv := Conversation{Messages: []map[string]any{
		{"id": "u1", "role": "user", "content": "one"},
		{"id": "act", "role": "activity", "content": map[string]any{}},
		{"id": "a1", "role": "assistant", "content": "reply"},
	}}
	// the same turns under the client's own ids, without the activity message (clients
	// do not send them), and a new one
	conv.AddInput(&RunAgentInput{Messages: []Message{msg("c1", "user", "one"), msg("c2", "assistant", "reply"), msg("c3", "user", "two")}})
	var got []string
	for _, m := range conv.Messages {
		got = append(got, m["id"].(string))
	}
	if want := []string{"c1", "act", "c2", "c3"}; !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
	// the new turn alone is added to what is held
	conv.AddInput(&RunAgentInput{Messages: []Message{msg("c3", "user", "two"), msg("c4", "tool", "result")}})
	if len(conv.Messages) != 5 || conv.Messages[4]["id"] != "c4" {
		t.Errorf("a new turn alone: %v", conv.Messages)
	}
}

// TestChunksBecomeTheMessagesTheyStream folds chunks of which only the first names its
// stream into a conversation: a text message, a tool call with its arguments and a
// reasoning message, as the client expands them.
func TestChunksBecomeTheMessagesTheyStream(t *testing.T) {
	var c Conversation
	for _, ev := range []Event{
		NewEvent(RunStarted, "threadId", "t", "runId", "r"),
		NewEvent(ReasoningMessageChunk, "messageId", "r1", "delta", "Let me "),
		NewEvent(ReasoningMessageChunk, "delta", "think."),
		NewEvent(TextMessageChunk, "messageId", "m1", "delta", "Hello "),
		NewEvent(TextMessageChunk, "delta", "there."),
		NewEvent(ToolCallChunk, "toolCallId", "c1", "toolCallName", "pick", "parentMessageId", "m1", "delta", `{"a":`),
		NewEvent(ToolCallChunk, "delta", `1}`),
		NewEvent(RunFinished, "threadId", "t", "runId", "r"),
	} {
		if err := c.Apply(ev); err != nil {
			t.Fatalf("%v: %v", ev, err)
		}
	}
	c.Settle()
	want := []map[string]any{
		{"id": "r1", "role": "reasoning", "content": "Let me think."},
		{"id": "m1", "role": "assistant", "content": "Hello there.", "toolCalls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "pick", "arguments": `{"a":1}`}},
		}},
	}
	if !reflect.DeepEqual(c.Messages, want) {
		t.Errorf("messages %v\nwant %v", c.Messages, want)
	}
	_ = c.Apply(NewEvent(RunStarted, "threadId", "t", "runId", "r2"))
	if err := c.Apply(NewEvent(TextMessageChunk, "delta", "lost")); err == nil || len(c.Messages) != 2 {
		t.Errorf("a next run's chunk that names no message is folded in: %v", c.Messages)
	}
}

func TestAFrozenConversationThawsIntoTheSameJSON(t *testing.T) {
	var c Conversation
	user := map[string]any{"id": "u", "role": "user", "content": "<b>Lisbon</b> & \"Porto\" 🌊\n"}
	c.AddInput(&RunAgentInput{Messages: []Message{{ID: "u", Role: "user", Raw: user}},
		State: map[string]any{"n": json.Number("12345678901234567890"), "f": 0.1, "deep": []any{map[string]any{}, []any{}, nil, true}}})
	for _, ev := range []Event{
		NewEvent(TextMessageStart, "messageId", "a", "role", "assistant"),
		NewEvent(TextMessageContent, "messageId", "a", "delta", "streamed, "),
		NewEvent(TextMessageContent, "messageId", "a", "delta", "then settled"),
		NewEvent(ToolCallStart, "toolCallId", "c", "toolCallName", "lookup", "parentMessageId", "a"),
		NewEvent(ToolCallArgs, "toolCallId", "c", "delta", `{"q":1}`),
		NewEvent(ToolCallResult, "toolCallId", "c", "messageId", "r", "content", "found"),
		NewEvent(StateDelta, "delta", []any{map[string]any{"op": "add", "path": "/count", "value": 3}}),
	} {
		if err := c.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	frozen, err := c.Freeze()
	if err != nil {
		t.Fatal(err)
	}
	thawed := Thaw(frozen)
	want, _ := json.Marshal(map[string]any{"messages": c.Messages, "state": c.State})
	got, _ := json.Marshal(map[string]any{"messages": thawed.Messages, "state": thawed.State})
	if string(got) != string(want) {
		t.Errorf("thawed:\n%s\nwant:\n%s", got, want)
	}
	if err := thawed.Apply(NewEvent(TextMessageStart, "messageId", "b", "role", "assistant")); err != nil || len(thawed.Messages) != len(c.Messages)+1 {
		t.Errorf("a thawed conversation goes on: %v, %d messages", err, len(thawed.Messages))
	}
}

// FuzzFreezeThaw: any JSON a conversation can hold thaws into the same JSON.
func FuzzFreezeThaw(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":[1,-0,2.5e+3,null,true,{"b":"<&>"}]}`, `"\u2028\ud83c\udf0a"`, `[[[]]]`, `12345678901234567890123`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		state, err := DecodeJSON(body)
		if err != nil {
			return
		}
		c := Conversation{Messages: []map[string]any{{"id": "m", "content": state}}, State: state}
		frozen, err := c.Freeze()
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		thawed := Thaw(frozen)
		want, _ := json.Marshal(c.Messages)
		got, _ := json.Marshal(thawed.Messages)
		wantState, _ := json.Marshal(c.State)
		gotState, _ := json.Marshal(thawed.State)
		if string(got) != string(want) || string(gotState) != string(wantState) {
			t.Fatalf("%q: thawed %s %s, want %s %s", body, got, gotState, want, wantState)
		}
	})
}
