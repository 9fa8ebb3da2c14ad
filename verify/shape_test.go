package verify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestShapeOfCountsARunOfDeltasAsOneStep(t *testing.T) {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	events := join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"),
		text("m1", "one two three"), toolCall("c1", "pick", `{"a":[{"b":1}]}`),
		protocol.NewEvent(protocol.StateDelta, "delta", []any{map[string]any{"op": "add", "path": "/items/3/done", "value": true}}),
		protocol.NewEvent(protocol.StateSnapshot, "snapshot", map[string]any{"user": map[string]any{"name": "x"}}),
		finished(in))
	sh := ShapeOf(events, nil)
	var steps []string
	for _, s := range sh.Steps {
		steps = append(steps, s.String())
	}
	want := "RUN_STARTED TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END TOOL_CALL_START pick TOOL_CALL_ARGS TOOL_CALL_END STATE_DELTA RUN_FINISHED"
	if got := strings.Join(steps, " "); got != want {
		t.Errorf("steps\n%s\nwant\n%s", got, want)
	}
	if !slices.Equal(sh.Unordered, []string{protocol.StateSnapshot}) {
		t.Errorf("unordered %q", sh.Unordered)
	}
	if want := []string{"/items/*/done", "/user", "/user/name"}; !slices.Equal(sh.StatePaths, want) {
		t.Errorf("state paths %q, want %q", sh.StatePaths, want)
	}
	if len(sh.Texts) != 1 || sh.Texts[0] != "one two three" || sh.Outcome != "success" || sh.Terminal != protocol.RunFinished {
		t.Errorf("shape %+v", sh)
	}
}

// Text and timing count only when asked for.
func TestCompareTextAndTimingOnRequest(t *testing.T) {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	run := func(words string, at ...time.Duration) Shape {
		return ShapeOf(join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"), text("m", words), finished(in)), at)
	}
	ms := time.Millisecond
	fixture := run("Hello there", 0, 100*ms, 110*ms, 120*ms, 130*ms, 200*ms)
	agent := run("Hi friend", 0, 400*ms, 410*ms, 420*ms, 430*ms, 900*ms)
	if d := Compare(fixture, agent, Options{}); len(d) != 0 {
		t.Fatalf("by default: %q", d)
	}
	d := Compare(fixture, agent, Options{ExactText: true})
	if len(d) != 1 || d[0] != `text message 1 now says "Hi friend" (the fixture "Hello there")` {
		t.Errorf("exact text: %q", d)
	}
	d = Compare(fixture, agent, Options{Timing: &Tolerance{Fixed: 250 * ms}})
	want := []string{
		"the first event after RUN_STARTED now comes after 400ms (the fixture's after 100ms, tolerance 250ms)",
		"the run now takes 900ms (the fixture's 200ms, tolerance 250ms)",
	}
	if !slices.Equal(d, want) {
		t.Errorf("timing: %q", d)
	}
	if d := Compare(fixture, agent, Options{Timing: &Tolerance{Relative: 4}}); len(d) != 0 {
		t.Errorf("within 400%%: %q", d)
	}
	if d := Compare(fixture, agent, Options{Timing: &Tolerance{Relative: 0.5}}); len(d) != 2 || !strings.Contains(d[0], "tolerance 50%") {
		t.Errorf("within 50%%: %q", d)
	}
}

// TestShapeOfReadsChunksByTheirStream sends messages and a tool call as chunks of which
// only the first names its stream, and a message whose deltas come between another's:
// the shape has each message's text and the call's arguments, as a client reads them.
func TestShapeOfReadsChunksByTheirStream(t *testing.T) {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	sh := ShapeOf(join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"),
		protocol.NewEvent(protocol.TextMessageChunk, "messageId", "m1", "delta", "one "),
		protocol.NewEvent(protocol.TextMessageChunk, "delta", "two"),
		protocol.NewEvent(protocol.ToolCallChunk, "toolCallId", "c1", "toolCallName", "pick", "delta", `{"a":`),
		protocol.NewEvent(protocol.ToolCallChunk, "delta", `[1]}`),
		protocol.NewEvent(protocol.TextMessageChunk, "messageId", "m2", "delta", "three"),
		protocol.NewEvent(protocol.TextMessageChunk, "delta", " four"),
		protocol.NewEvent(protocol.TextMessageStart, "messageId", "m3", "role", "assistant"),
		protocol.NewEvent(protocol.TextMessageStart, "messageId", "m4", "role", "assistant"),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", "m3", "delta", "five"),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", "m4", "delta", "six"),
		protocol.NewEvent(protocol.TextMessageContent, "messageId", "m3", "delta", " seven"),
		finished(in)), nil)
	if !slices.Equal(sh.Texts, []string{"one two", "three four", "five seven", "six"}) {
		t.Errorf("texts %q", sh.Texts)
	}
	if len(sh.Tools) != 1 || sh.Tools[0].Name != "pick" || sh.Tools[0].raw != `{"a":[1]}` || sh.Tools[0].Args == nil {
		t.Errorf("tools %+v", sh.Tools)
	}
}

// snapshotRun is a run that delivers a tool call and its result inside a
// MESSAGES_SNAPSHOT, as LangGraph and backend tool rendering do.
func snapshotRun(tool, args string) Shape {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	messages := []any{
		map[string]any{"id": "u1", "role": "user", "content": "weather?"},
		map[string]any{"id": "a1", "role": "assistant", "toolCalls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": tool, "arguments": args}}}},
		map[string]any{"id": "t1", "role": "tool", "toolCallId": "c1", "content": "sunny"},
		map[string]any{"id": "a2", "role": "assistant", "content": "It is sunny."},
	}
	return ShapeOf(join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"),
		protocol.NewEvent(protocol.MessagesSnapshot, "messages", messages), finished(in)), nil)
}

// A tool renamed, or an argument renamed, inside a MESSAGES_SNAPSHOT is drift, as it is
// in a streamed TOOL_CALL_START.
func TestCompareSeesToolCallsInsideSnapshots(t *testing.T) {
	fixture := snapshotRun("get_weather", `{"city":"Paris"}`)
	if d := Compare(fixture, snapshotRun("get_weather", `{"city":"Rome"}`), Options{}); len(d) != 0 {
		t.Errorf("the same structure: %q", d)
	}
	tests := map[string]struct {
		agent Shape
		want  string
	}{
		"a renamed tool": {snapshotRun("fetch_weather", `{"city":"Paris"}`),
			"message 2 of the last MESSAGES_SNAPSHOT is now an assistant message calling fetch_weather (the fixture's is an assistant message calling get_weather)"},
		"a renamed argument": {snapshotRun("get_weather", `{"town":"Paris"}`),
			"the arguments of tool get_weather: the agent now sends argument town"},
	}
	for name, tt := range tests {
		d := Compare(fixture, tt.agent, Options{})
		if !slices.Contains(d, tt.want) {
			t.Errorf("%s: %q, want %q among them", name, d, tt.want)
		}
	}
	if got := fixture.Snapshots[0][2].String(); got != "a tool message answering get_weather" {
		t.Errorf("the tool message: %q", got)
	}
}

// A call streamed and then repeated in the run's snapshot is one call.
func TestASnapshotRepeatingAStreamedCallAddsNoCall(t *testing.T) {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	events := join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"), toolCall("c1", "pick", `{"a":1}`),
		protocol.NewEvent(protocol.MessagesSnapshot, "messages", []any{map[string]any{"id": "a1", "role": "assistant", "toolCalls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "pick", "arguments": `{"a":1}`}}}}}),
		finished(in))
	if sh := ShapeOf(events, nil); len(sh.Tools) != 1 {
		t.Errorf("tools %+v", sh.Tools)
	}
}

// How many snapshots an agent sends, and where, is its scheduling: LangGraph's subgraphs
// send one as each of their steps ends, in an order that differs from run to run. Runs
// that differ only there are alike; a snapshot kind the agent stops sending, or another
// last snapshot, is drift.
func TestSnapshotsCountByKindAndTheLastOne(t *testing.T) {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	user := map[string]any{"id": "u1", "role": "user", "content": "plan"}
	answer := map[string]any{"id": "a1", "role": "assistant", "content": "Planned."}
	call := map[string]any{"id": "a2", "role": "assistant", "toolCalls": []any{
		map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "search", "arguments": "{}"}}}}
	snapshot := func(msgs ...any) protocol.Event {
		return protocol.NewEvent(protocol.MessagesSnapshot, "messages", msgs)
	}
	state := protocol.NewEvent(protocol.StateSnapshot, "snapshot", map[string]any{"steps": []any{}})
	run := func(middle ...protocol.Event) Shape {
		return ShapeOf(join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"), middle, text("m", "Planned."), finished(in)), nil)
	}
	recorded := run(snapshot(user), state, snapshot(user), snapshot(user, answer))
	for name, agent := range map[string]Shape{
		"fewer intermediate snapshots":    run(state, snapshot(user, answer)),
		"snapshots in another order":      run(snapshot(user), snapshot(user), state, snapshot(user, answer), state),
		"the same snapshots, all at once": run(state, snapshot(user), snapshot(user), snapshot(user, answer)),
	} {
		if d := Compare(recorded, agent, Options{}); len(d) != 0 {
			t.Errorf("%s: %q", name, d)
		}
	}
	for name, tt := range map[string]struct {
		agent Shape
		want  string
	}{
		"no state snapshot":         {run(snapshot(user), snapshot(user, answer)), "the agent no longer sends STATE_SNAPSHOT"},
		"a message snapshot at all": {run(state), "the agent no longer sends MESSAGES_SNAPSHOT"},
		"another last snapshot":     {run(state, snapshot(user, call)), "message 2 of the last MESSAGES_SNAPSHOT is now an assistant message calling search (the fixture's is an assistant message)"},
	} {
		if d := Compare(recorded, tt.agent, Options{}); !slices.Contains(d, tt.want) {
			t.Errorf("%s: %q, want %q among them", name, d, tt.want)
		}
	}
}

// A RAW event passes on a framework's own event: @ag-ui/langgraph sends one after every
// event, between text deltas too, so their number follows the text's chunks. A reply one
// chunk shorter is the same structure; a run that stops sending RAW events is not.
func TestRawEventsCountByTheirPresence(t *testing.T) {
	in := &protocol.RunAgentInput{ThreadID: "t", RunID: "r"}
	raw := protocol.NewEvent(protocol.Raw, "event", map[string]any{"event": "on_chat_model_stream"}, "source", "langgraph")
	run := func(words ...string) Shape {
		parts := []any{protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"), raw,
			protocol.NewEvent(protocol.TextMessageStart, "messageId", "m", "role", "assistant"), raw}
		for _, w := range words {
			parts = append(parts, protocol.NewEvent(protocol.TextMessageContent, "messageId", "m", "delta", w), raw)
		}
		return ShapeOf(join(append(parts, protocol.NewEvent(protocol.TextMessageEnd, "messageId", "m"), finished(in))...), nil)
	}
	if d := Compare(run("Hello ", "there ", "friend."), run("Hi."), Options{}); len(d) != 0 {
		t.Errorf("a reply in fewer chunks: %q", d)
	}
	without := ShapeOf(join(protocol.NewEvent(protocol.RunStarted, "threadId", "t", "runId", "r"), text("m", "Hi."), finished(in)), nil)
	if d := Compare(run("Hi."), without, Options{}); !slices.Equal(d, []string{"the agent no longer sends RAW"}) {
		t.Errorf("no RAW events: %q", d)
	}
}
